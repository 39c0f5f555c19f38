"""Identifier rules and the generators that must only ever produce valid numbers."""

import pytest

from sandbox.identifiers import (
    area_code_for_state,
    generate_esim_iccid,
    generate_iccid,
    generate_mdn,
    is_valid_iccid,
    is_valid_imei,
    is_valid_mdn,
    luhn_valid,
)

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize(
    ("number", "valid"),
    [("4111111111111111", True), ("4111111111111112", False), ("79927398713", True), ("7992739871x", False)],
)
async def test_luhn(number: str, valid: bool) -> None:
    assert luhn_valid(number) is valid


async def test_imei_and_iccid_rules() -> None:
    assert is_valid_imei("352099081234508") and not is_valid_imei("352099081234563")
    assert is_valid_iccid("89012600000000000003") and not is_valid_iccid("89012600000000000004")
    assert not is_valid_iccid("99012600000000000001")


@pytest.mark.parametrize(("mdn", "valid"), [("2125550123", True), ("1125550123", False), ("2121550123", False)])
async def test_mdn_rule(mdn: str, valid: bool) -> None:
    assert is_valid_mdn(mdn) is valid


async def test_generators_make_valid_numbers() -> None:
    for _ in range(200):
        assert is_valid_iccid(generate_iccid())
        mdn = generate_mdn(area_code="305")
        assert is_valid_mdn(mdn) and mdn.startswith("305") and mdn[4:6] != "11" and mdn[3:6] != "555"


async def test_esim_profiles_are_valid_19_or_20_digit_iccids() -> None:
    profiles = [generate_esim_iccid() for _ in range(200)]
    assert all(is_valid_iccid(profile) and profile.startswith("89") for profile in profiles)
    assert {len(profile) for profile in profiles} == {19, 20}


async def test_area_code_for_state() -> None:
    assert (area_code_for_state("fl"), area_code_for_state("XX")) == ("305", "212")
