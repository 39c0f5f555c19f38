"""Carrier tax stand-in: calculation, temporary and final collection, repeats, unknown and backwards."""

from typing import Any

import httpx
import pytest

from sandbox.tax import tax_cents
from tests.support.sandbox_bodies import iccid, key

pytestmark = pytest.mark.asyncio


async def calculate(client: httpx.AsyncClient, state: str = "TX", amount_cents: int = 2500) -> dict[str, Any]:
    body = {"vendor_id": "V1", "state": state, "amount_cents": amount_cents}
    answer: dict[str, Any] = (await client.post("/carrier/tax/calculations", json=body, headers=key())).json()
    return answer


async def collect(client: httpx.AsyncClient, calc_id: str, status: str) -> dict[str, Any]:
    body = {"vendor_id": "V1", "calc_id": calc_id, "iccid": iccid(1), "status": status}
    answer: dict[str, Any] = (await client.post("/carrier/tax/collect", json=body)).json()
    return answer


async def test_tax_calculation_uses_state_rate(client: httpx.AsyncClient) -> None:
    answer = await calculate(client, state="TX", amount_cents=2500)
    assert answer["STATUSCODE"] == "00" and answer["STATUS"] == "PENDING_COLLECTION"
    assert answer["CALCID"].startswith("TX") and len(answer["CALCID"]) == 12
    assert (answer["RATE_BPS"], answer["TAX_AMOUNT_CENTS"]) == (625, 156)


async def test_tax_rate_differs_by_state(client: httpx.AsyncClient) -> None:
    assert (await calculate(client, state="OR"))["TAX_AMOUNT_CENTS"] == 0
    assert (await calculate(client, state="CA", amount_cents=1000))["TAX_AMOUNT_CENTS"] == 73


async def test_tax_rounds_half_up_in_integers() -> None:
    assert tax_cents(100, 650) == 7  # 6.5 cents
    assert tax_cents(100, 649) == 6
    assert tax_cents(0, 725) == 0


async def test_tax_same_key_same_calculation(client: httpx.AsyncClient) -> None:
    headers, body = key(), {"vendor_id": "V1", "state": "NY", "amount_cents": 1999}
    first = (await client.post("/carrier/tax/calculations", json=body, headers=headers)).json()
    again = (await client.post("/carrier/tax/calculations", json=body, headers=headers)).json()
    assert again == first


async def test_tax_collect_temporary_then_final(client: httpx.AsyncClient) -> None:
    calc_id = (await calculate(client))["CALCID"]
    temporary = await collect(client, calc_id, "temporary")
    assert temporary["STATUSCODE"] == "00" and temporary["DESCRIPTION"] == "Tax collected"
    assert temporary["CALCID"] == calc_id and temporary["STATUS"] == "COLLECTED_TEMPORARY"
    assert temporary["REFERENCENUMBER"]
    final = await collect(client, calc_id, "final")
    assert final["STATUS"] == "COLLECTED_FINAL"
    assert final["REFERENCENUMBER"] != temporary["REFERENCENUMBER"]


@pytest.mark.parametrize("status", ["temporary", "final"])
async def test_tax_collect_same_status_again_same_reference(client: httpx.AsyncClient, status: str) -> None:
    calc_id = (await calculate(client))["CALCID"]
    first = await collect(client, calc_id, status)
    assert await collect(client, calc_id, status) == first


async def test_tax_collect_with_a_key_repeats_the_first_answer_whatever_happened_since(
    client: httpx.AsyncClient,
) -> None:
    calc_id = (await calculate(client))["CALCID"]
    headers, body = key(), {"vendor_id": "V1", "calc_id": calc_id, "iccid": iccid(1), "status": "temporary"}
    first = (await client.post("/carrier/tax/collect", json=body, headers=headers)).json()
    await collect(client, calc_id, "final")
    retried = (await client.post("/carrier/tax/collect", json=body, headers=headers)).json()
    assert retried == first and first["STATUS"] == "COLLECTED_TEMPORARY"  # not the 409 a new temporary gets


async def test_tax_collect_unknown_calc_is_404(client: httpx.AsyncClient) -> None:
    assert await collect(client, "TX0000000000", "final") == {
        "STATUSCODE": "404",
        "DESCRIPTION": "Calculation not found",
    }


async def test_tax_collect_temporary_after_final_is_409(client: httpx.AsyncClient) -> None:
    calc_id = (await calculate(client))["CALCID"]
    await collect(client, calc_id, "final")
    assert await collect(client, calc_id, "temporary") == {
        "STATUSCODE": "409",
        "DESCRIPTION": "Calculation already final",
    }


async def test_tax_collect_rejects_unknown_status(client: httpx.AsyncClient) -> None:
    calc_id = (await calculate(client))["CALCID"]
    body = {"vendor_id": "V1", "calc_id": calc_id, "iccid": iccid(1), "status": "maybe"}
    assert (await client.post("/carrier/tax/collect", json=body)).status_code == 422


async def test_tax_calculation_without_idempotency_key_is_400(client: httpx.AsyncClient) -> None:
    body = {"vendor_id": "V1", "state": "TX", "amount_cents": 100}
    assert (await client.post("/carrier/tax/calculations", json=body)).status_code == 400


async def quote(client: httpx.AsyncClient, state: str, amount_cents: int) -> dict[str, Any]:
    # No Idempotency-Key: a quote registers nothing.
    body = {"vendor_id": "V1", "state": state, "amount_cents": amount_cents}
    response = await client.post("/carrier/tax/quote", json=body)
    assert response.status_code == 200
    answer: dict[str, Any] = response.json()
    return answer


async def test_tax_quote_answer(client: httpx.AsyncClient) -> None:
    assert await quote(client, "GA", 2500) == {
        "STATUSCODE": "00",
        "TAX_AMOUNT_CENTS": 100,
        "RATE_BPS": 400,
        "TAX_BREAKUP": [{"TAX_NAME": "State sales tax", "TAX_AMOUNT_CENTS": 100}],
    }


@pytest.mark.parametrize(
    ("state", "amount_cents"),
    [("GA", 2500), ("TX", 2500), ("CA", 1000), ("AR", 100), ("ny", 1999), ("OR", 4000), ("ZZ", 2500), ("PR", 1)],
)
async def test_tax_quote_figures_are_the_calculations(client: httpx.AsyncClient, state: str, amount_cents: int) -> None:
    quoted = await quote(client, state, amount_cents)
    calculated = await calculate(client, state=state, amount_cents=amount_cents)
    figures = ("TAX_AMOUNT_CENTS", "RATE_BPS", "TAX_BREAKUP")
    assert {name: quoted[name] for name in figures} == {name: calculated[name] for name in figures}
    assert sum(item["TAX_AMOUNT_CENTS"] for item in quoted["TAX_BREAKUP"]) == quoted["TAX_AMOUNT_CENTS"]


async def test_tax_calculation_breakup_adds_up(client: httpx.AsyncClient) -> None:
    answer = await calculate(client, state="TX", amount_cents=2500)
    assert answer["TAX_BREAKUP"] == [{"TAX_NAME": "State sales tax", "TAX_AMOUNT_CENTS": 156}]


async def test_tax_quote_registers_no_calculation(client: httpx.AsyncClient) -> None:
    answered = await quote(client, "TX", 2500)
    assert "CALCID" not in answered and "STATUS" not in answered


async def test_tax_quote_negative_amount_is_422(client: httpx.AsyncClient) -> None:
    assert (await quote(client, "TX", 0))["TAX_AMOUNT_CENTS"] == 0
    response = await client.post("/carrier/tax/quote", json={"vendor_id": "V1", "state": "TX", "amount_cents": -1})
    assert response.status_code == 422
    assert [problem["loc"] for problem in response.json()["detail"]] == [["body", "amount_cents"]]
