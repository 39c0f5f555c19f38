"""NLAD stand-in: every answer of the ETC check, and the order in which the rules apply."""

from datetime import date

import httpx
import pytest

from tests.support.sandbox_bodies import etc_check

pytestmark = pytest.mark.asyncio


def years_ago(years: int, days: int = 0) -> str:
    today = date.today()
    birthday = date(today.year - years, today.month, 28 if (today.month, today.day) == (2, 29) else today.day)
    return date.fromordinal(birthday.toordinal() + days).isoformat()


async def result(client: httpx.AsyncClient, **overrides: str | None) -> str:
    response = await client.post("/nlad/etc-check", json=etc_check(**overrides))
    assert response.status_code == 200
    answer: str = response.json()["result"]
    return answer


@pytest.mark.parametrize(
    ("ssn4", "expected"),
    [
        ("1111", "TPIV_FAIL_IDENTITY_NOT_FOUND"),
        ("2222", "TPIV_FAIL_NAME_SSN4"),
        ("3333", "TPIV_FAIL_DOB"),
        ("4444", "TPIV_FAIL_DECEASED"),
        ("5555", "DUPLICATE_SUBSCRIBER"),
        ("6666", "DUPLICATE_ADDRESS"),
        ("1234", "SUBSCRIBER_NOT_FOUND"),
    ],
)
async def test_nlad_answer_by_ssn4(client: httpx.AsyncClient, ssn4: str, expected: str) -> None:
    assert await result(client, ssn4=ssn4) == expected


async def test_nlad_7777_is_down(client: httpx.AsyncClient) -> None:
    response = await client.post("/nlad/etc-check", json=etc_check(ssn4="7777"))
    assert response.status_code == 503
    assert response.json() == {"STATUSCODE": "503", "DESCRIPTION": "Service unavailable"}


@pytest.mark.parametrize(("line", "value"), [("address_one", "12 invalid Rd"), ("address_two", "Apt INVALID")])
async def test_nlad_invalid_address(client: httpx.AsyncClient, line: str, value: str) -> None:
    assert await result(client, **{line: value}) == "INVALID_ADDRESS"


async def test_nlad_under_18(client: httpx.AsyncClient) -> None:
    assert await result(client, dob=years_ago(18, days=1)) == "SUBSCRIBER_UNDER_18"
    assert await result(client, dob=years_ago(18)) == "SUBSCRIBER_NOT_FOUND"


async def test_nlad_rule_order(client: httpx.AsyncClient) -> None:
    young, invalid = years_ago(10), "1 INVALID St"
    assert await result(client, ssn4="3333", address_one=invalid, dob=young) == "TPIV_FAIL_DOB"
    assert await result(client, address_one=invalid, dob=young) == "INVALID_ADDRESS"
    response = await client.post("/nlad/etc-check", json=etc_check(ssn4="7777", address_one=invalid))
    assert response.status_code == 503
