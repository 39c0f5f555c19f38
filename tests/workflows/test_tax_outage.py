"""Orders through a carrier outage (issue 27, finding 15): make_payment registered the tax calculation at the
carrier before charging, so during a full carrier outage no order could start. Now it is quoted from the last rates
Lineup holds for that state and plan, and registered at the carrier once it is back (once: the payment's key),
collectible then under the calc id the channel was given; without held rates the answer says why."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from sqlmodel import select

from models.payment import TaxRate, TaxRegistration
from tests.support.builders import body
from tests.support.taxes import tax

FAST = {"lookup_budget_seconds": 1.5}
DOWN = "The carrier is unavailable, please try again later"


async def pay(stack: Any, **fields: Any) -> dict[str, Any]:
    answer: dict[str, Any] = await stack.call(
        "/payment", body("make_payment", enrollment_id=await stack.new_enrollment_id(), **fields)
    )
    return answer


async def registrations(stack: Any) -> list[dict[str, Any]]:
    async with httpx.AsyncClient() as http:
        found: list[dict[str, Any]] = (await http.get(f"{stack.sandbox}/sandbox/ledger")).json()["tax_registrations"]
    return found


async def waiting(stack: Any, calc_id: str) -> TaxRegistration | None:
    async with stack.db.transaction() as session:
        found: TaxRegistration | None = await session.get(TaxRegistration, calc_id)
        return found


@pytest.mark.parametrize("settings_overrides", [FAST])
async def test_a_payment_during_a_carrier_outage_is_quoted_from_held_rates_and_registered_once_back(stack):
    before = await pay(stack)  # the carrier up: its rate for plan 102 in GA is kept
    assert before["msg_code"] == "RESTAPI000", before
    async with stack.db.transaction() as session:
        held = (await session.exec(select(TaxRate).where(TaxRate.plan_id == 102, TaxRate.state == "GA"))).one()
    assert (held.amount_cents, held.tax_cents) == (round(float(before["data"]["amount"]) * 100), 100)

    await stack.faults(fault_rate=1.0)
    try:
        during = await pay(stack)
        assert during["msg_code"] == "RESTAPI000", during
        calc_id = during["data"]["calc_id"]
        assert calc_id.startswith("LX") and during["data"]["payment_status"] == "SUCCESS"
        assert (during["data"]["amount"], during["data"]["tax_amount"]) == (before["data"]["amount"], "1.00")
        # Collecting it now would need the carrier: the usual outage answer, the calculation intact.
        early = await stack.call("/payment", tax(calc_id, "temporary"))
        assert (early["msg_code"], early["errors"]) == ("RESTAPI110", [DOWN])
        await asyncio.sleep(2)  # the registration is retried meanwhile
        still = await waiting(stack, calc_id)
        assert still is not None and still.carrier_calc_id is None
    finally:
        await stack.faults(fault_rate=0)

    for _ in range(150):  # its backoff, from a second, doubling
        if (registration := await waiting(stack, calc_id)) is not None and registration.carrier_calc_id:
            break
        await asyncio.sleep(0.2)
    assert registration is not None and registration.carrier_calc_id and registration.carrier_tax_cents == 100
    collected = await stack.call("/payment", tax(calc_id, "final"))
    assert collected["msg_code"] == "RESTAPI000", collected
    assert collected["data"]["CALCID"] == calc_id and collected["data"]["REFERENCENUMBER"]
    ours = [entry for entry in await registrations(stack) if entry["calc_id"] == registration.carrier_calc_id]
    assert len(ours) == 1  # registered once, whatever the retries and the collection did


@pytest.mark.parametrize("settings_overrides", [FAST])
async def test_collecting_a_calculation_the_carrier_has_not_taken_yet_registers_it_first(stack):
    assert (await pay(stack))["msg_code"] == "RESTAPI000"
    await stack.faults(fault_rate=1.0)
    try:
        during = await pay(stack)
        assert during["msg_code"] == "RESTAPI000", during
        calc_id = during["data"]["calc_id"]
        # Its registration workflow gone (say, terminated by an operator): the collection registers it itself.
        await stack.env.client.get_workflow_handle(f"taxreg-{calc_id}").terminate()
    finally:
        await stack.faults(fault_rate=0)
    collected = await stack.call("/payment", tax(calc_id, "temporary"))
    assert collected["msg_code"] == "RESTAPI000", collected
    registration = await waiting(stack, calc_id)
    assert registration is not None and registration.carrier_calc_id
    assert len([e for e in await registrations(stack) if e["calc_id"] == registration.carrier_calc_id]) == 1


@pytest.mark.parametrize("settings_overrides", [FAST])
async def test_without_held_rates_the_answer_says_why(stack):
    await stack.faults(fault_rate=1.0)
    try:
        refused = await pay(stack, plan_id="103")
        details = await stack.call("/payment", body("payment_details", plan_id="103", zip_code="30301"))
    finally:
        await stack.faults(fault_rate=0)
    why = (
        "The carrier's tax service is unavailable and Lineup holds no tax rate for plan 103 in GA yet, so the tax "
        "cannot be quoted; please try again later"
    )
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", [why])
    assert (details["msg_code"], details["errors"]) == ("RESTAPI110", [why])
    assert await stack.call("/payment", body("payment_details", plan_id="103", zip_code="30301"))  # up again
    await stack.faults(fault_rate=1.0)
    try:
        held = await stack.call("/payment", body("payment_details", plan_id="103", zip_code="30301"))
    finally:
        await stack.faults(fault_rate=0)
    assert held["msg_code"] == "RESTAPI000", held  # payment_details' quote kept the rate
