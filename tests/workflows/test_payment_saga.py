"""make_payment as a saga: no card is charged without a record. The payment row is the intent, a durable
guard starts before the charge, and a failure after the gateway approved is settled by the guard from the
gateway's record (or the charge is given back) — never forgotten."""

from __future__ import annotations

import asyncio
import secrets
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlmodel import select
from temporalio import activity
from temporalio.worker import Worker

from api import payment as charges
from models.payment import PaymentGuard, PaymentRecord, SavedCard, charge_key
from tests.support.builders import body
from workflows.payment import PaymentGuardWorkflow


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"payment_guard_seconds": 1.0}


async def payment_of(stack: Any, enrollment_id: str) -> PaymentRecord:
    async with stack.db.transaction() as session:
        found: PaymentRecord = (
            await session.exec(select(PaymentRecord).where(PaymentRecord.enrollment_id == enrollment_id))
        ).one()
        return found


async def settled(stack: Any, enrollment_id: str, *, within: float = 20.0) -> PaymentRecord:
    deadline = asyncio.get_running_loop().time() + within
    while (payment := await payment_of(stack, enrollment_id)).status == "PENDING":
        assert asyncio.get_running_loop().time() < deadline, "the guard never settled the payment"
        await asyncio.sleep(0.2)
    return payment


async def gateway(stack: Any, path: str, key: str) -> dict[str, Any]:
    async with httpx.AsyncClient() as http:
        found: dict[str, Any] = (await http.post(f"{stack.sandbox}/payments/charges/{path}", json={"key": key})).json()
        return found


async def test_a_write_that_fails_after_the_approval_is_completed_by_the_guard(stack, monkeypatch):
    enrollment_id = await stack.new_enrollment_id()

    async def write_fails(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the database went away after the gateway approved")

    monkeypatch.setattr(charges, "record_approval", write_fails)
    failed = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, save_card="Y"))
    assert failed["msg_code"] == "RESTAPI110" and failed["errors"][0].startswith("Unexpected error")
    pending = await payment_of(stack, enrollment_id)
    charged = await gateway(stack, "lookup", charge_key(pending.idempotency_key, 0))
    assert (pending.status, charged["status"]) == ("PENDING", "approved")  # money taken, not yet recorded

    payment = await settled(stack, enrollment_id)
    assert (payment.status, payment.transaction_id) == ("APPROVED", charged["transaction_id"])
    async with stack.db.transaction() as session:
        card = (await session.exec(select(SavedCard).where(SavedCard.enrollment_id == enrollment_id))).one()
    assert (card.last4, payment.card_id) == ("1111", card.id)
    monkeypatch.undo()
    again = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, save_card="Y"))
    assert again["data"]["transaction_id"] == charged["transaction_id"]  # the first charge's, no second one


async def test_a_crash_before_the_gateway_saw_the_charge_is_abandoned_and_can_be_paid_again(stack, monkeypatch):
    enrollment_id = await stack.new_enrollment_id()

    async def crash(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the API process died before the charge left it")

    monkeypatch.setattr(stack.app.state.resources.payments, "charge", crash)
    assert (await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id)))["msg_code"] == "RESTAPI110"
    assert (await settled(stack, enrollment_id)).status == "ABANDONED"
    monkeypatch.undo()
    paid = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id))
    assert (paid["msg_code"], paid["data"]["settlement"]) == ("RESTAPI000", "APPROVED"), paid
    assert (await payment_of(stack, enrollment_id)).attempt == 1


async def test_a_declined_card_may_be_followed_by_another_card(stack):
    enrollment_id = await stack.new_enrollment_id()
    declined = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, cvv="000"))
    assert declined["errors"] == ["Payment declined: CVV mismatch"]
    paid = await stack.call(
        "/payment", body("make_payment", enrollment_id=enrollment_id, card_number="5555555555554444")
    )
    assert (paid["msg_code"], paid["data"]["settlement"]) == ("RESTAPI000", "APPROVED"), paid
    payment = await payment_of(stack, enrollment_id)
    assert (payment.status, payment.attempt) == ("APPROVED", 1)


async def test_a_payment_that_cannot_be_recorded_is_given_back(time_skipping):
    """The guard's settle fails for good (the database never comes back): it voids the charge."""
    voided: list[PaymentGuard] = []

    @activity.defn(name="settle_payment")
    async def settle_fails(guard: PaymentGuard) -> str:
        raise RuntimeError("database unavailable")

    @activity.defn(name="void_payment")
    async def void(guard: PaymentGuard) -> str:
        voided.append(guard)
        return "VOIDED"

    queue = f"guard-{secrets.token_hex(4)}"
    async with Worker(
        time_skipping.client, task_queue=queue, workflows=[PaymentGuardWorkflow], activities=[settle_fails, void]
    ):
        guard = PaymentGuard("KEY1", 2, wait_seconds=60)
        result = await time_skipping.client.execute_workflow(
            PaymentGuardWorkflow.run,
            guard,
            id=f"payment-{queue}",
            task_queue=queue,
            execution_timeout=timedelta(days=2),
        )
    assert (result, voided) == ("VOIDED", [guard])


async def test_a_released_guard_ends_without_asking_the_gateway(time_skipping):
    asked: list[PaymentGuard] = []

    @activity.defn(name="settle_payment")
    async def settle(guard: PaymentGuard) -> str:
        asked.append(guard)
        return "APPROVED"

    queue = f"guard-{secrets.token_hex(4)}"
    async with Worker(time_skipping.client, task_queue=queue, workflows=[PaymentGuardWorkflow], activities=[settle]):
        handle = await time_skipping.client.start_workflow(
            PaymentGuardWorkflow.run, PaymentGuard("KEY2", 0, wait_seconds=600), id=f"payment-{queue}", task_queue=queue
        )
        await handle.signal(PaymentGuardWorkflow.release)
        assert await handle.result() == "RECORDED_BY_API"
    assert asked == []


async def test_the_same_payment_sent_twice_at_once_is_charged_once_and_answered_by_both(stack):
    """The second request finds the first's tax registration still running: it waits for it (never a 500) and
    then either finds the payment made or hears it is still being completed; the card is charged once."""
    enrollment_id = await stack.new_enrollment_id()
    request = body("make_payment", enrollment_id=enrollment_id, external_transaction_id="TWICE" + secrets.token_hex(4))
    answers = await asyncio.gather(stack.call("/payment", request), stack.call("/payment", request))
    assert {answer["msg_code"] for answer in answers} <= {"RESTAPI000", "RESTAPI110"}, answers
    assert any(answer["msg_code"] == "RESTAPI000" for answer in answers), answers
    for answer in answers:
        if answer["msg_code"] == "RESTAPI110":
            assert answer["errors"] == [charges.IN_PROGRESS], answer
    payment = await payment_of(stack, enrollment_id)
    charged = await gateway(stack, "lookup", charge_key(payment.idempotency_key, payment.attempt))
    assert (payment.status, charged["status"]) == ("APPROVED", "approved")
