"""Valid identifiers and request bodies for the sandbox's own tests (tests/sandbox); each test overrides what it
is about."""

from itertools import count
from typing import Any

from sandbox.identifiers import luhn_check_digit

_keys = count(1)


def imei(digit14: str) -> str:
    """A valid IMEI whose 14th digit (the scenario digit) is `digit14`."""
    payload = "3520990812345" + digit14
    return payload + luhn_check_digit(payload)


def iccid(serial: int) -> str:
    """A valid 20-digit ICCID, distinct per serial."""
    payload = f"8901260{serial:012d}"
    return payload + luhn_check_digit(payload)


def key() -> dict[str, str]:
    """Headers with a fresh Idempotency-Key."""
    return {"Idempotency-Key": f"test-key-{next(_keys)}"}


def activation(**overrides: Any) -> dict[str, Any]:
    """A valid activation body."""
    body = {
        "vendor_id": "V1",
        "enrollment_id": "E1",
        "zip": "10001",
        "state": "NY",
        "plan_id": "PLAN-5GB",
        "iccid": iccid(1),
        "esn": None,
    }
    return {**body, **overrides}


def port_in(**overrides: Any) -> dict[str, Any]:
    """A valid port-in body on the default (completing) path."""
    body = {
        "vendor_id": "V1",
        "enrollment_id": "E1",
        "port_number": "2125550123",
        "iccid": iccid(50),
        "current_carrier": "TMB",
        "account_number": "123456789",
        "account_password": "4321",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "address_one": "1 Main St",
        "address_two": None,
        "city": "New York",
        "state": "NY",
        "zip": "10001",
    }
    return {**body, **overrides}


def etc_check(**overrides: Any) -> dict[str, Any]:
    """A valid NLAD ETC check body for an adult with a plain address."""
    body = {
        "first_name": "Ada",
        "middle_name": None,
        "last_name": "Lovelace",
        "ssn4": "1234",
        "dob": "1980-05-17",
        "address_one": "1 Main St",
        "address_two": None,
        "city": "New York",
        "state": "NY",
        "zip_code": "10001",
    }
    return {**body, **overrides}


def charge(**overrides: Any) -> dict[str, Any]:
    """A valid, approving card charge."""
    body = {
        "card_number": "4111111111111111",
        "exp_month": "12",
        "exp_year": "2099",
        "cvv": "123",
        "name_on_card": "Ada Lovelace",
        "amount_cents": 2500,
        "zip": "10001",
    }
    return {**body, **overrides}
