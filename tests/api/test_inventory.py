"""`/inventory` check_device_compatibility: field rules, and each device scenario of sandbox.md through a real
worker and the sandbox's carrier."""

from __future__ import annotations

import time

import pytest

from models.types import with_check_digit
from tests.support.builders import body, imei

IMEI_RULE = "IMEI must be 15 digits with a valid check digit"
CARRIER_RULE = "Carrier must be a carrier abbreviation: ATT, TMB, VER, SPR, TMBRLY, USC"
VALID_IMEI = with_check_digit("35209908123450")


def device(**overrides):
    return body("check_device_compatibility", **overrides)


def refusal(envelope):
    return envelope["msg_code"], envelope["msg"], envelope.get("errors")


def wrong_check_digit(number: str) -> str:
    return number[:-1] + str((int(number[-1]) + 1) % 10)


# (field, good, bad, the bad value's message)
RULES = [
    ("imei", VALID_IMEI, wrong_check_digit(VALID_IMEI), IMEI_RULE),
    ("imei", f" {imei('1')} ", VALID_IMEI[:14], IMEI_RULE),
    ("imei", imei("2"), VALID_IMEI + "0", IMEI_RULE),
    ("imei", imei("3"), "35209908123450A", IMEI_RULE),
    ("imei", imei("0"), "", "Please enter IMEI"),
    ("carrier", "tmb", "XYZ", CARRIER_RULE),
    ("carrier", "ATT", "", "Please enter Carrier"),
]


@pytest.mark.parametrize(("field", "good", "bad", "error"), RULES)
async def test_check_device_compatibility_field_rule(api, field, good, bad, error):
    assert refusal(await api.call("/inventory", device(**{field: bad}))) == ("RESTAPI110", "Error occurred", [error])


async def test_check_device_compatibility_good_values_and_sources_pass(stack):
    goods = [(field, good) for field, good, _, _ in RULES] + [("source", "TABLET"), ("source", "WEBSITE")]
    for field, good in goods:
        envelope = await stack.call("/inventory", device(**{field: good}))
        assert (envelope["msg_code"], envelope["data"]["COMPATIBILITY"]) == ("RESTAPI000", "COMPATIBLE"), (
            field,
            envelope,
        )


async def test_check_device_compatibility_refuses_a_source_not_allowed(api):
    envelope = await api.call("/inventory", device(source="IVR"))
    assert refusal(envelope) == ("RESTAPI103", "Source Not Allowed", ["Source Not Allowed"])


# sandbox.md, by the IMEI's 14th digit: (digit, COMPATIBILITY, VOLTE_COMPATIBLE, the native block's attCompatibility)
SCENARIOS = [
    ("0", "COMPATIBLE", "YES", "GREEN"), ("1", "COMPATIBLE", "YES", "GREEN"), ("2", "COMPATIBLE", "YES", "GREEN"),
    ("3", "COMPATIBLE", "YES", "GREEN"), ("4", "COMPATIBLE", "NO", "YELLOW"), ("5", "COMPATIBLE", "NO", "YELLOW"),
    ("6", "NOT COMPATIBLE", "NO", "RED"), ("7", "NOT COMPATIBLE", "NO", "RED"),
]  # fmt: skip
FLAT = {
    "STATUSCODE", "DESCRIPTION", "IMEI", "REFERENCENUMBER", "VOLTE_COMPATIBLE", "NAME", "IS_MOBILE_DEVICE",
    "COMPATIBILITY",
}  # fmt: skip


def native(data):
    """The carrier's device block where the original's device checkers read it."""
    return data["RESULT"]["responseDetails"]["inquireDeviceStatusResponse"]["deviceStatusDetails"]


@pytest.mark.parametrize("action", ["check_device_compatibility", "get_query_device"])
async def test_each_scenario_answers_section_2_7s_shape_and_the_native_block(stack, action):
    for digit, compatibility, volte, colour in SCENARIOS:
        number = imei(digit)
        envelope = await stack.call("/inventory", body(action, imei=number, carrier="VER"))
        assert (envelope["msg_code"], envelope["msg"]) == ("RESTAPI000", "Success"), (digit, envelope)
        data = envelope["data"]
        assert set(data) == FLAT | {"RESULT"}
        assert all(isinstance(data[name], str) for name in FLAT)
        assert (data["STATUSCODE"], data["IMEI"], data["IS_MOBILE_DEVICE"]) == ("00", number, "YES")
        assert (data["COMPATIBILITY"], data["VOLTE_COMPATIBLE"]) == (compatibility, volte), digit
        assert data["NAME"] and data["REFERENCENUMBER"] and data["DESCRIPTION"]
        block = native(data)
        assert (block["attCompatibility"], block["blacklistedIndicator"]) == (colour, "N"), digit
        # The text a channel of the original compares with (decisions.md, "Device answer").
        assert block["volteCapableIndicator"] == ("true" if volte == "YES" else "false")
        assert block["umtsCapableIndicator"] == ("true" if compatibility == "COMPATIBLE" else "false")
        assert block["manufacturer"]["make"] and block["manufacturer"]["model"] and block["deviceCategory"]


@pytest.mark.parametrize("action", ["check_device_compatibility", "get_query_device"])
async def test_check_device_compatibility_blacklisted_is_the_carriers_description_with_the_devices_data(stack, action):
    number = imei("8")
    envelope = await stack.call("/inventory", body(action, imei=number, carrier="TMB"))
    assert refusal(envelope) == ("RESTAPI110", "Error occurred", ["Device is blacklisted"])
    assert envelope["token"]
    # A checker reading the answer sees why (decisions.md, "Device answer"): the flat fields and the block.
    data = envelope["data"]
    assert set(data) == FLAT | {"RESULT"} and all(isinstance(data[name], str) for name in FLAT)
    assert (data["STATUSCODE"], data["IMEI"], data["COMPATIBILITY"]) == ("902", number, "NOT COMPATIBLE")
    assert data["NAME"] and data["VOLTE_COMPATIBLE"] == "NO"
    block = native(data)
    assert (block["attCompatibility"], block["blacklistedIndicator"], block["imei"]) == ("RED", "Y", number)
    assert (block["umtsCapableIndicator"], block["volteCapableIndicator"]) == ("false", "false")
    assert block["manufacturer"] == {"make": "Samsung", "model": "Galaxy S9"}
    # A device the carrier does not refuse is never marked blacklisted.
    fine = await stack.call("/inventory", body(action, imei=imei("0"), carrier="TMB"))
    assert native(fine["data"])["blacklistedIndicator"] == "N"
    assert (native(fine["data"])["umtsCapableIndicator"], native(fine["data"])["volteCapableIndicator"]) == (
        "true",
        "true",
    )


# The budget as a setting, small: the outage is answered once it is spent, and the test waits seconds, not 10.
@pytest.mark.parametrize("settings_overrides", [{"lookup_budget_seconds": 2.0, "temporal_rpc_seconds": 2.0}])
async def test_check_device_compatibility_carrier_down_is_a_clean_error_within_the_budget(stack):
    started = time.monotonic()
    envelope = await stack.call("/inventory", device(imei=imei("9")))
    assert time.monotonic() - started < 2.0 + 2.0  # within the lookup's budget and a round trip to Temporal
    assert refusal(envelope) == ("RESTAPI110", "Error occurred", ["The carrier is unavailable, please try again later"])
