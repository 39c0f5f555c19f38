"""`/inventory` check_device_compatibility: field rules, and each device scenario of sandbox.md through a real
worker and the sandbox's carrier."""

from __future__ import annotations

import time

import pytest

from tests.builders import body, imei, with_check_digit

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
        assert (envelope["msg_code"], envelope["data"]["COMPATIBILITY"]) == ("RESTAPI000", "COMPATIBLE"), (field, envelope)


async def test_check_device_compatibility_refuses_a_source_not_allowed(api):
    envelope = await api.call("/inventory", device(source="IVR"))
    assert refusal(envelope) == ("RESTAPI103", "Source Not Allowed", ["Source Not Allowed"])


# sandbox.md, by the IMEI's 14th digit: (digit, COMPATIBILITY, VOLTE_COMPATIBLE)
SCENARIOS = [
    ("0", "COMPATIBLE", "YES"), ("1", "COMPATIBLE", "YES"), ("2", "COMPATIBLE", "YES"), ("3", "COMPATIBLE", "YES"),
    ("4", "COMPATIBLE", "NO"), ("5", "COMPATIBLE", "NO"),
    ("6", "NOT COMPATIBLE", "NO"), ("7", "NOT COMPATIBLE", "NO"),
]  # fmt: skip


async def test_check_device_compatibility_answers_each_scenario_in_section_2_7s_shape(stack):
    for digit, compatibility, volte in SCENARIOS:
        number = imei(digit)
        envelope = await stack.call("/inventory", device(imei=number, carrier="VER"))
        assert (envelope["msg_code"], envelope["msg"]) == ("RESTAPI000", "Success"), (digit, envelope)
        data = envelope["data"]
        assert set(data) == {
            "STATUSCODE", "DESCRIPTION", "IMEI", "REFERENCENUMBER", "VOLTE_COMPATIBLE", "NAME", "IS_MOBILE_DEVICE",
            "COMPATIBILITY",
        }  # fmt: skip
        assert all(isinstance(value, str) for value in data.values())
        assert (data["STATUSCODE"], data["IMEI"], data["IS_MOBILE_DEVICE"]) == ("00", number, "YES")
        assert (data["COMPATIBILITY"], data["VOLTE_COMPATIBLE"]) == (compatibility, volte), digit
        assert data["NAME"] and data["REFERENCENUMBER"] and data["DESCRIPTION"]


async def test_check_device_compatibility_blacklisted_is_the_carriers_description(stack):
    envelope = await stack.call("/inventory", device(imei=imei("8")))
    assert refusal(envelope) == ("RESTAPI110", "Error occurred", ["Device is blacklisted"])
    assert envelope["token"]


async def test_check_device_compatibility_carrier_down_is_a_clean_error_within_the_budget(stack):
    started = time.monotonic()
    envelope = await stack.call("/inventory", device(imei=imei("9")))
    assert time.monotonic() - started < 15
    assert refusal(envelope) == ("RESTAPI110", "Error occurred", ["The carrier is unavailable, please try again later"])
