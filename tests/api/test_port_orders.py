"""Field rules of the mobile channels' port calls and new_number_activation_with_zip_code (decisions.md): each
rule with a good value (it passes validation: the unknown line is what is refused) and a bad one."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.builders import PORT_FIELDS, body, new_iccid

CREATE_PORTIN = "create_portin_v2_when_create_customer_was_called_without_portin_tag"
PORT_ORDER = {name: value for name, value in PORT_FIELDS.items() if name != "activation_type"}
UNKNOWN_LINE = "No customer found against this enrolment ID"
NO_ORDER = "No port-in order found for this enrollment id"
SIM = new_iccid()


async def errors(api: Any, path: str, action: str, **fields: Any) -> list[str]:
    answer = await api.call(path, body(action, **fields))
    assert answer["msg_code"] in ("RESTAPI110", "RESTAPI010"), answer
    found: list[str] = answer["errors"]
    return found


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("enrollment_id", "EUNKNOWN1", "E-1", "Enrollment Id must be letters and digits only"),
        ("enrollment_id", "EUNKNOWN1", None, "Please enter Enrollment Id"),
        ("port_number", "4045551234", "404555123", None),
        ("port_ssn", "6789", "678", None),
        ("port_ssn", None, "12345", "Port SSN must be the last 4 digits or all 9 digits"),  # optional here
        ("port_zip_code", "30301", "3030", None),
        ("port_state", "GA", "G1", None),
        ("port_account_password", "4321", "43 21", None),
        ("port_account_number", "ACC-1", "ACC#1", None),
        ("port_first_name", "Pat", "P4t", None),
        ("port_current_carrier", None, "A" * 33, "Port current carrier must be at most 32 characters"),
    ],
)
async def test_create_portin_field_rules(api, field, good, bad, error):
    fields = {**PORT_ORDER, "enrollment_id": "EUNKNOWN1"}
    assert await errors(api, "/port", CREATE_PORTIN, **{**fields, field: good}) == [UNKNOWN_LINE]
    refused = await errors(api, "/port", CREATE_PORTIN, **{**fields, field: bad})
    assert len(refused) == 1 and (error is None or refused[0].startswith(error)), refused


# The original's documented port body (decisions.md): the same order under its names, no SSN.
ORIGINAL_ORDER = {
    "first_name": "Pat", "last_name": "Smith", "account_number": "ACC12345", "password_pin": "4321",
    "zip_code": "30301", "state": "GA", "city": "Atlanta", "address_one": "9 Elm St", "port_number": "4045551234",
    "current_carrier": "ATT",
}  # fmt: skip


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("first_name", "Mary-Jane", "P4t", "First name may contain only"),
        ("last_name", "de la Cruz", "S", "Last name must contain at least 2 letters"),
        ("account_number", "ACC-1", "ACC#1", "Account number must be letters, digits and hyphens"),
        ("password_pin", "1234", "12 34", "Password pin must be letters and digits"),
        ("zip_code", "30303", "3030", "Zip code must be exactly 5 digits"),
        ("state", "ga", "G1", "State must be a US state or territory abbreviation"),
        ("city", "Winston-Salem", "Atlanta2", "City may contain only letters, spaces and hyphens"),
        ("address_one", "9 Elm St #2", "9 Elm St.", "Address one may contain only"),
        ("address_two", "Apt 4", "Apt. 4", "Address two may contain only"),
        ("current_carrier", "TMB", "A" * 33, "Current carrier must be at most 32 characters"),
        ("imei", "352099081234508", "35209908123450", "IMEI must be 15 digits with a valid check digit"),
        ("sim", SIM, "8901260000000000001", "Sim must be 18 to 22 digits starting 89"),
        ("port_ssn", "6789", "678", "Port SSN must be the last 4 digits or all 9 digits"),
    ],
)
async def test_create_portin_takes_the_originals_port_body(api, field, good, bad, error):
    """A refusal names the field by the name the channel sent."""
    fields = {**ORIGINAL_ORDER, "enrollment_id": "EUNKNOWN1"}
    assert await errors(api, "/port", CREATE_PORTIN, **{**fields, field: good}) == [UNKNOWN_LINE]
    refused = await errors(api, "/port", CREATE_PORTIN, **{**fields, field: bad})
    assert len(refused) == 1 and refused[0].startswith(error), refused


async def test_create_portin_names_its_line_by_enrollment_id_or_sim(api):
    unnamed = {**ORIGINAL_ORDER, "enrollment_id": None}
    assert await errors(api, "/port", CREATE_PORTIN, **unnamed) == ["Please enter Enrollment Id (or the line's Sim)"]
    assert await errors(api, "/port", CREATE_PORTIN, **{**unnamed, "sim": new_iccid()}) == [UNKNOWN_LINE]
    missing = await errors(api, "/port", CREATE_PORTIN, enrollment_id="EUNKNOWN1", port_number="4045551234")
    assert missing == [
        "Please enter Port first name", "Please enter Port last name", "Please enter Port address one",
        "Please enter Port city", "Please enter Port state", "Please enter Port zip code",
        "Please enter Port account number", "Please enter Port account password",
    ]  # fmt: skip  # and no SSN among them


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"enroll_id": None}, "Please enter Enroll Id"),
        ({"enroll_id": "E-1"}, "Enroll Id must be letters and digits only"),
        ({"get_child_list": "X"}, "Get child list must be Y or N"),
    ],
)
async def test_get_list_field_rules(api, fields, error):
    good = await errors(api, "/port", "get_list", enroll_id="EUNKNOWN1", get_child_list="Y")
    assert good == ["No Record Found"]
    refused = await errors(api, "/port", "get_list", **{"enroll_id": "EUNKNOWN1", **fields})
    assert len(refused) == 1 and refused[0].startswith(error), refused


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"portin_enrollment_id": None}, "Please enter Portin Enrollment Id"),
        ({"password_pin": "12 34"}, "Password pin must be letters and digits, at most 20"),
        ({"password_pin": None}, "Please provide at least one corrected port field"),
        ({"port_zip_code": "3030"}, "Port zip code must be exactly 5 digits"),
    ],
)
async def test_submit_portin_field_rules(api, fields, error):
    valid = {"enrollment_id": "EUNKNOWN1", "portin_enrollment_id": "EUNKNOWN1", "password_pin": "1234"}
    assert await errors(api, "/port", "submit_portin", **valid) == [NO_ORDER]
    refused = await errors(api, "/port", "submit_portin", **{**valid, **fields})
    assert len(refused) == 1 and refused[0].startswith(error), refused


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"zip_code": "3030"}, "Zip code must be exactly 5 digits"),
        ({"zip_code": None}, "Please enter Zip code"),
        ({"zip_code": "00001"}, "Zip code 00001 is not in a served area"),
        ({"sim": "8901"}, "Sim"),
        ({"esn": "123"}, "ESN must be a valid SIM, IMEI, MEID or ESN"),
        ({"sim": SIM, "iccid": SIM}, "Send one of Esn, Sim or Iccid, not several"),
    ],
)
async def test_new_number_activation_field_rules(api, fields, error):
    valid = {"enrollment_id": "EUNKNOWN1", "zip_code": "90001"}
    good = await errors(api, "/inventory", "new_number_activation_with_zip_code", **valid)
    assert good == [UNKNOWN_LINE]
    refused = await errors(api, "/inventory", "new_number_activation_with_zip_code", **{**valid, **fields})
    assert len(refused) == 1 and refused[0].startswith(error), refused


async def test_validate_portin_on_inventory_needs_a_number(api):
    assert await errors(api, "/inventory", "validate_portin") == ["Please enter Port number"]
