"""A valid body per action; each test overrides only the field it is about."""

from __future__ import annotations

import secrets
from typing import Any

from models.types import with_check_digit
from tests.support.images import JPEG, b64, data_uri, png

BASE: dict[str, Any] = {"source": "API", "agent_id": "demo.agent"}


def new_iccid() -> str:
    return with_check_digit("89" + "".join(secrets.choice("0123456789") for _ in range(17)))


def imei(fourteenth: str) -> str:
    """An IMEI whose 14th digit drives the sandbox's device scenario."""
    return with_check_digit("35" + "".join(secrets.choice("0123456789") for _ in range(11)) + fourteenth)


def line(enrollment_id: str, **overrides: Any) -> dict[str, Any]:
    """One line of create_customer_prepaid_multiline: a new activation, shipped."""
    result: dict[str, Any] = {
        "enrollment_id": enrollment_id,
        "first_name": "Pat",
        "middle_initial": "Q",
        "last_name": "O'Neil",
        "email": f"pat.{enrollment_id.lower()}@example.com",
        "password": "line-pass-1",
        "service_address_one": "12 Main St",
        "service_address_two": "Apt #4",
        "service_city": "Atlanta",
        "service_state": "GA",
        "service_zip": "30301",
        "plan_id": "102",
        "activation_type": "NEWACTIVATION",
        "enrollment_type": "SHIPMENT",
        "alternate_phone_number": "4045550123",
        "action": None,
    }
    result.update(overrides)
    if result.get("port_number") == ANY_PORT_NUMBER:  # one port in progress per number: each line its own
        result["port_number"] = fresh_port_number()
    return {key: value for key, value in result.items() if value is not None or key == "action"}


ANY_PORT_NUMBER = "4045551234"  # PORT_FIELDS' number: `line` gives each line a fresh one in its place


def fresh_port_number() -> str:
    """A valid number the sandbox ports along its default path (not ending 96 or 98)."""
    number = f"404{200 + secrets.randbelow(800)}{secrets.randbelow(10_000):04d}"
    return number if number[-2:] not in ("96", "98") else fresh_port_number()


PORT_FIELDS: dict[str, Any] = {
    "activation_type": "PORTIN", "port_current_carrier": "ATT", "port_first_name": "Pat", "port_last_name": "Smith",
    "port_address_one": "9 Elm St", "port_city": "Atlanta", "port_state": "GA", "port_zip_code": "30301",
    "port_account_number": "ACC12345", "port_account_password": "4321", "port_ssn": "6789",
    "port_number": "4045551234",
}  # fmt: skip
HANDOVER_FIELDS: dict[str, Any] = {"enrollment_type": "HANDOVER", "handover_type": "cbe", "carrier": "TMB"}

VALID: dict[str, dict[str, Any]] = {
    "update_location_coordinate": {
        "username": "demo.agent", "latitude": "33.7490", "longitude": "-84.3880", "ip_address": "203.0.113.7",
    },
    "check_service_availability": {"zip_code": "30301", "enrollment_type": "NON_LIFELINE", "is_enrollment": "Y"},
    "plan_list": {},
    "line_inquiry": {"enrollment_id": "EXXXX", "line_inquiry": "", "balance_inquiry": ""},
    "make_payment": {
        "enrollment_id": "EXXXX", "plan_id": "102", "card_number": "4111111111111111", "exp_month": "12",
        "exp_year": "2030", "cvv": "123", "name_on_card": "Pat Q O'Neil", "address1": "12 Main St",
        "city": "Atlanta", "state": "GA", "zip": "30301", "save_card": "Y",
    },
    "create_customer_prepaid_multiline": {"parent_enrollment_id": "EXXXX", "lines": []},
    "nlad_etc_check": {
        "ssn": "1234", "first_name": "Pat", "middle_name": "Q", "last_name": "O'Neil", "dob": "1980-04-12",
        "address_one": "12 Main St", "address_two": "Apt #4", "city": "Atlanta", "state": "GA", "zip_code": "30301",
        "address_validation": "Y",
    },
    "tpiv_listing": {"zip_code": "30301"},
    "check_device_compatibility": {"imei": with_check_digit("3520990812345" + "0"), "carrier": "TMB"},
    "send": {
        "sender_name": "Lineup Support", "sender_email": "support@lineup.example", "subject": "Your line is active",
        "body": "<p>Welcome to Lineup!</p>", "receiver_name": ["Pat O'Neil"], "receiver_email": ["pat@example.com"],
    },
}  # fmt: skip

# Issue 6: notes, signatures, saved cards, agent password change. Ids and OTPs are placeholders tests override.
VALID.update(
    {
        "save_signature": {"signature": data_uri(png())},
        "check_signature": {"login_log_otp": "100000"},
        "add_notes": {
            "customer_id": "100000000",
            "enrollment_id": "EXXXX",
            "customer_notes": "Customer asked about the bill",
            "coordinate": {"latitude": "33.7490", "longitude": "-84.3880"},
            "is_activity": "1",
            "activity_type": "CALL",
        },
        "saved_card_list": {"enrollment_id": "EXXXX", "username": "pat@example.com", "password": "line-pass-1"},
        "agent_change_password": {
            "worksite_proof": data_uri(png()),
            "table_proof": b64(JPEG),
            "agent_change_password": data_uri(JPEG, "image/jpeg"),
            "coordinate": {"latitude": "33.7490", "longitude": "-84.3880"},
        },
    }
)


# Issue 26: the original's /address operations.
VALID.update(
    {
        "get_city_state": {"zip_code": "30303"},
        "address_validation_usps": {
            "address_one": "12 main street", "address_two": "apartment 4b", "city": "Atlanta", "state": "GA",
            "zip_code": "30303",
        },
    }
)  # fmt: skip


def body(action: str, /, **overrides: Any) -> dict[str, Any]:
    """The valid body of `action` with `overrides` applied; an override of None removes the field."""
    result = {"action": action, **BASE, **VALID.get(action, {}), **overrides}
    return {key: value for key, value in result.items() if value is not None}


def create(parent: str, *lines: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    return body("create_customer_prepaid_multiline", parent_enrollment_id=parent, lines=list(lines), **overrides)
