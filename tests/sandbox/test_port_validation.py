"""Port validation: eligibility by the number's last two digits, the current carrier by its last digit."""

from typing import Any

import httpx
import pytest

from tests.support.sandbox_bodies import key, port_in

pytestmark = pytest.mark.asyncio


async def validate(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    # No Idempotency-Key: validation changes nothing, so it needs none.
    response = await client.post("/carrier/ports/validate", json={"vendor_id": "V1", **body})
    assert response.status_code == 200
    answer: dict[str, Any] = response.json()
    return answer


def eligible(number: str, carrier: str, name: str, reference: str) -> dict[str, Any]:
    return {
        "STATUSCODE": "00",
        "DESCRIPTION": "Success",
        "PORT_NUMBER": number,
        "ELIGIBLE": "Y",
        "CURRENT_CARRIER": carrier,
        "CURRENT_CARRIER_NAME": name,
        "REFERENCENUMBER": reference,
    }


@pytest.mark.parametrize(
    ("number", "carrier", "name"),
    [
        ("4045551230", "ATT", "AT&T Mobility"),
        ("4045551231", "ATT", "AT&T Mobility"),
        ("4045551232", "ATT", "AT&T Mobility"),
        ("4045551233", "TMB", "T-Mobile USA"),
        ("4045551234", "TMB", "T-Mobile USA"),
        ("4045551235", "TMB", "T-Mobile USA"),
        ("4045551236", "VER", "Verizon Wireless"),
        ("4045551237", "VER", "Verizon Wireless"),
        ("4045551238", "VER", "Verizon Wireless"),
        ("4045551239", "USC", "UScellular"),
    ],
)
async def test_port_validation_current_carrier_by_last_digit(
    client: httpx.AsyncClient, number: str, carrier: str, name: str
) -> None:
    answer = await validate(client, port_number=number)
    assert answer == eligible(number, carrier, name, answer["REFERENCENUMBER"])
    assert len(answer["REFERENCENUMBER"]) == 12 and answer["REFERENCENUMBER"].isdigit()


@pytest.mark.parametrize(("number", "verdict"), [("4045551298", "N"), ("4045551289", "Y"), ("4045551297", "Y")])
async def test_port_validation_number_ending_98_is_not_portable(
    client: httpx.AsyncClient, number: str, verdict: str
) -> None:
    answer = await validate(client, port_number=number)
    assert (answer["STATUSCODE"], answer["ELIGIBLE"]) == ("00", verdict)
    expected_reason = {"REASON": "Number is not portable"} if verdict == "N" else {}
    assert {name: value for name, value in answer.items() if name == "REASON"} == expected_reason


async def test_port_validation_not_portable_still_names_the_current_carrier(client: httpx.AsyncClient) -> None:
    answer = await validate(client, port_number="4045551298")
    assert answer == {
        **eligible("4045551298", "VER", "Verizon Wireless", answer["REFERENCENUMBER"]),
        "ELIGIBLE": "N",
        "REASON": "Number is not portable",
    }


@pytest.mark.parametrize(
    "number",
    ["1045551234", "4041551234", "0045551234", "404555123", "40455512345", "404555123a", ""],
    ids=["area-code-1", "exchange-1", "area-code-0", "9-digits", "11-digits", "letter", "empty"],
)
async def test_port_validation_invalid_number_is_604(client: httpx.AsyncClient, number: str) -> None:
    assert await validate(client, port_number=number) == {"STATUSCODE": "604", "DESCRIPTION": "MDN invalid"}


async def test_port_validation_takes_an_optional_zip_code(client: httpx.AsyncClient) -> None:
    with_zip = await validate(client, port_number="4045551233", zip_code="30303")
    assert (with_zip["STATUSCODE"], with_zip["ELIGIBLE"], with_zip["CURRENT_CARRIER"]) == ("00", "Y", "TMB")


async def test_port_validation_without_port_number_is_422(client: httpx.AsyncClient) -> None:
    response = await client.post("/carrier/ports/validate", json={"vendor_id": "V1"})
    assert response.status_code == 422
    assert [problem["loc"] for problem in response.json()["detail"]] == [["body", "port_number"]]


async def test_port_validation_changes_nothing(client: httpx.AsyncClient) -> None:
    """Validating does not move the number: the carrier still does not hold it, and it can still be submitted."""
    await validate(client, port_number="2125550123")
    inquiry = await client.post("/carrier/line-inquiry", json={"vendor_id": "V1", "mdn": "2125550123"})
    assert inquiry.json()["STATUSCODE"] == "909"
    submitted = await client.post("/carrier/ports", json=port_in(port_number="2125550123"), headers=key())
    assert (submitted.json()["STATUSCODE"], submitted.json()["PORTIN_STATUS"]) == ("00", "SUBMITTED")
