"""`/address` get_city_state and address_validation_usps (issue 26; decisions.md, "Working with the original
service's channels"): each field's rule with a good and a bad value, the ZIP data's answers (an unknown ZIP, a
ZIP of another state, a city that is not the ZIP's), USPS Publication 28's forms, and the sources."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.builders import body


def refused_with(envelope, *errors: str) -> None:
    code, msg = ("RESTAPI110", "Error occurred") if len(errors) == 1 else ("RESTAPI010", "Multiple errors")
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (code, msg, list(errors))


@pytest.mark.parametrize(
    ("good", "bad", "error"),
    [
        ("30303", "3030", "Zip code must be exactly 5 digits"),
        (" 90001 ", "9000a", "Zip code must be exactly 5 digits"),
        ("00501", "", "Please enter Zip code"),
    ],
)
async def test_get_city_state_zip_code_rule(api, good, bad, error):
    assert (await api.call("/address", body("get_city_state", zip_code=good)))["msg_code"] == "RESTAPI000"
    refused_with(await api.call("/address", body("get_city_state", zip_code=bad)), error)


@pytest.mark.parametrize(
    ("zip_code", "city", "state"),
    [("30303", "ATLANTA", "GA"), ("90001", "LOS ANGELES", "CA"), ("00601", "ADJUNTAS", "PR"), ("09012", "APO", "AE")],
)
async def test_get_city_state_answers_the_usps_city_in_capitals(api, zip_code, city, state):
    found = await api.call("/address", body("get_city_state", zip_code=zip_code))
    assert (found["msg_code"], found["data"]) == ("RESTAPI000", {"zip_code": zip_code, "city": city, "state": state})


@pytest.mark.parametrize("zip_code", ["00000", "99999", "14645"])  # never issued, and retired by USPS
async def test_get_city_state_unknown_zip_is_invalid(api, zip_code):
    refused_with(await api.call("/address", body("get_city_state", zip_code=zip_code)), "Invalid zip code")


ADDRESS_RULES = [
    ("address_one", "400 Elm St", "12 Main St.", "Address one may contain only letters, digits, spaces and / # -"),
    ("address_one", "12 Main Street", "", "Please enter Address one"),
    ("address_two", "Unit 7", "Apt. 4", "Address two may contain only letters, digits, spaces and / # -"),
    ("city", "atlanta", "Atlanta2", "City may contain only letters, spaces and hyphens"),
    ("city", "ATLANTA", "", "Please enter City"),
    ("state", "ga", "XX", "State must be a US state or territory abbreviation"),
    ("zip_code", "30303", "3030", "Zip code must be exactly 5 digits"),
]


@pytest.mark.parametrize(("field", "good", "bad", "error"), ADDRESS_RULES)
async def test_address_validation_usps_field_rule(api, field, good, bad, error):
    accepted = await api.call("/address", body("address_validation_usps", **{field: good}))
    assert accepted["msg_code"] == "RESTAPI000", accepted
    refused_with(await api.call("/address", body("address_validation_usps", **{field: bad})), error)


@pytest.mark.parametrize(
    ("sent", "answered"),
    [
        (
            {"address_one": "12 main street", "address_two": "apartment 4b", "city": "atlanta"},
            {"address_one": "12 MAIN ST", "address_two": "APT 4B", "city": "ATLANTA"},
        ),
        (
            {"address_one": "400 north elm avenue suite 200", "address_two": None, "city": "Atlanta"},
            {"address_one": "400 N ELM AVE", "address_two": "STE 200", "city": "ATLANTA"},
        ),
        (
            {"address_one": "12 Main Street", "address_two": "", "city": "Atlanta"},
            {"address_one": "12 MAIN ST", "address_two": None, "city": "ATLANTA"},
        ),
        (
            {"address_one": "12 Main St", "address_two": "Apt #4", "city": "Atlanta"},
            {"address_one": "12 MAIN ST", "address_two": "APT 4", "city": "ATLANTA"},
        ),
        (
            {"address_one": "12 Main St #4", "address_two": None, "city": "Atlanta"},
            {"address_one": "12 MAIN ST", "address_two": "# 4", "city": "ATLANTA"},
        ),
    ],
)
async def test_address_validation_usps_standardizes_by_publication_28(api, sent, answered):
    found = await api.call("/address", body("address_validation_usps", **sent))
    lineups = {**answered, "state": "GA", "zip_code": "30303"}
    assert (found["msg_code"], found["data"]) == ("RESTAPI000", {**lineups, **usps_keys(lineups)})


def usps_keys(address: dict[str, Any]) -> dict[str, Any]:
    """The same address as USPS Web Tools' verify answer names it: Address1 is the unit line, Address2 the street."""
    return {
        "Address1": address["address_two"] or "",
        "Address2": address["address_one"],
        "City": address["city"],
        "State": address["state"],
        "Zip5": address["zip_code"],
        "Zip4": "",
    }


async def test_the_native_apps_read_the_usps_keys_of_the_originals_body(api):
    """The original's apps send Lineup's names and read USPS's (decisions.md, address_validation_usps)."""
    sent = body(
        "address_validation_usps",
        address_one="45 peachtree street",
        address_two="unit 12",
        city="ATLANTA",
        state="ga",
        zip_code="30303",
    )
    found = (await api.call("/address", sent))["data"]
    read = {key: found[key] for key in ("Address1", "Address2", "City", "State", "Zip5", "Zip4")}
    assert read == {
        "Address1": "UNIT 12",
        "Address2": "45 PEACHTREE ST",
        "City": "ATLANTA",
        "State": "GA",
        "Zip5": "30303",
        "Zip4": "",
    }
    without_unit = (await api.call("/address", {**sent, "address_two": ""}))["data"]
    assert (without_unit["Address1"], without_unit["Address2"]) == ("", "45 PEACHTREE ST")
    refused_with(await api.call("/address", {**sent, "zip_code": "3030"}), "Zip code must be exactly 5 digits")


async def test_address_validation_usps_takes_a_city_usps_accepts_and_answers_its_preferred_name(api):
    found = await api.call(
        "/address", body("address_validation_usps", city="Firestone Park", state="CA", zip_code="90001")
    )
    assert (found["data"]["city"], found["data"]["state"]) == ("LOS ANGELES", "CA")


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"zip_code": "00000"}, "Invalid zip code"),
        ({"state": "CA"}, "Zip code 30303 is in GA, not CA"),
        ({"city": "Marietta"}, "City MARIETTA is not a city of zip code 30303 (ATLANTA)"),
        ({"address_one": "PO Box 12", "zip_code": "30301"}, "Address one could not be read as a street address "
         "(house number and street name)"),
    ],
)  # fmt: skip
async def test_address_validation_usps_refuses_what_the_zip_data_contradicts(api, fields, error):
    refused_with(await api.call("/address", body("address_validation_usps", **fields)), error)


@pytest.mark.parametrize("action", ["get_city_state", "address_validation_usps"])
async def test_address_sources_are_the_mobile_channels(api, action):
    for source in ("API", "TABLET", "website", "ENROLLMENT_PORTAL"):
        assert (await api.call("/address", body(action, source=source)))["msg_code"] == "RESTAPI000", source
    refused = await api.call("/address", body(action, source="IVR"))
    assert (refused["msg_code"], refused["msg"]) == ("RESTAPI103", "Source Not Allowed")
