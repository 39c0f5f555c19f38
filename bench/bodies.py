"""Request bodies the bench sends, as a channel would (the curl examples of the README and docs/channels.md)."""

from __future__ import annotations

import secrets
from typing import Any

from models.types import with_check_digit

AGENT: dict[str, str] = {"source": "API", "agent_id": "demo.agent"}
AUTHENTICATE = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
UPDATE_LOCATION = {
    "action": "update_location_coordinate", **AGENT,
    "username": "demo.agent", "latitude": "33.7490", "longitude": "-84.3880",
}  # fmt: skip
PLAN_LIST = {"action": "plan_list", **AGENT}
AVAILABILITY = {"action": "check_service_availability", **AGENT, "zip_code": "30301"}


def compatible_imei() -> str:
    """A fresh Luhn-valid IMEI whose 14th digit (0–3) makes the sandbox answer compatible with VoLTE."""
    stem = "35" + "".join(secrets.choice("0123456789") for _ in range(11)) + secrets.choice("0123")
    return with_check_digit(stem)


def device_check() -> dict[str, Any]:
    return {"action": "check_device_compatibility", **AGENT, "imei": compatible_imei(), "carrier": "TMB"}


def nlad_check() -> dict[str, Any]:
    ssn = secrets.choice(["1234", "2468", "8642", "9999", "0001"])  # never 7777: that one plays an NLAD outage
    return {
        "action": "nlad_etc_check",
        **AGENT,
        "ssn": ssn,
        "first_name": "Pat",
        "middle_name": "Q",
        "last_name": "O'Neil",
        "dob": "1980-04-12",
        "address_one": "12 Main St",
        "address_two": "Apt #4",
        "city": "Atlanta",
        "state": "GA",
        "zip_code": "30301",
        "address_validation": "Y",
    }


def line(enrollment_id: str) -> dict[str, Any]:
    """One NEWACTIVATION line, shipped; its own e-mail so every line is its own customer."""
    return {
        "enrollment_id": enrollment_id,
        "first_name": "Pat",
        "last_name": "Lee",
        "email": f"pat.{enrollment_id.lower()}@example.com",
        "password": "line-pass-1",
        "service_address_one": "12 Main St",
        "service_city": "Atlanta",
        "service_state": "GA",
        "service_zip": "30301",
        "plan_id": "102",
        "activation_type": "NEWACTIVATION",
        "enrollment_type": "SHIPMENT",
    }


def create_customer(enrollment_ids: list[str], portin: bool = False) -> dict[str, Any]:
    """create_customer_prepaid_multiline with one line per id; the first line holds the account."""
    make = portin_line if portin else line
    return {
        "action": "create_customer_prepaid_multiline",
        **AGENT,
        "parent_enrollment_id": enrollment_ids[0],
        "lines": [make(eid) for eid in enrollment_ids],
    }


def port_number() -> str:
    """A valid number the sandbox ports in full (it keeps numbers ending 96 pending and refuses 98)."""
    number = "4045" + "".join(secrets.choice("0123456789") for _ in range(6))
    return number if number[-2:] not in ("96", "98") else port_number()


def portin_line(enrollment_id: str) -> dict[str, Any]:
    """One PORTIN line, shipped, bringing a number the sandbox completes after LINEUP_SANDBOX_PORT_COMPLETE_SECONDS."""
    return {
        **line(enrollment_id),
        "activation_type": "PORTIN",
        "port_current_carrier": "ATT",
        "port_first_name": "Pat",
        "port_last_name": "Lee",
        "port_address_one": "12 Main St",
        "port_city": "Atlanta",
        "port_state": "GA",
        "port_zip_code": "30301",
        "port_account_number": "ACC12345",
        "port_account_password": "4321",
        "port_ssn": "6789",
        "port_number": port_number(),
    }


def line_inquiry(enrollment_id: str) -> dict[str, Any]:
    return {"action": "line_inquiry", **AGENT, "enrollment_id": enrollment_id}
