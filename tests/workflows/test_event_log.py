"""The event log (issue 21): each change writes its event, with who made it — a port-in to completion with its
payment and tax, an eSIM, a line activated later, a stuck line retried by its own timer — and an endpoint that
fails for the whole delivery budget is disabled with the reason support reads."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from sqlmodel import col, select

from models.events import LineEvent, WebhookDelivery, WebhookEndpoint
from tests.support.builders import body, create, line
from tests.support.lines import wait_for, waiting_line
from tests.support.ports import ported_line
from tests.support.taxes import tax
from tests.support.webhooks import receiver, register


async def logged(stack: Any, enrollment_id: str) -> list[LineEvent]:
    async with stack.db.transaction() as session:
        query = select(LineEvent).where(LineEvent.enrollment_id == enrollment_id).order_by(col(LineEvent.id))
        return list((await session.exec(query)).all())


async def until_logged(stack: Any, enrollment_id: str, kind: str, within: float = 30.0) -> list[LineEvent]:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        found = await logged(stack, enrollment_id)
        if kind in {event.type for event in found}:
            return found
        assert asyncio.get_running_loop().time() < deadline, [event.type for event in found]
        await asyncio.sleep(0.2)


@pytest.mark.parametrize("settings_overrides", [{"port_poll_seconds": 0.5}])
async def test_a_port_in_with_its_payment_and_tax_logs_each_step(stack):
    ported, _, number = await ported_line(stack)
    paid = await stack.call("/payment", body("make_payment", enrollment_id=ported))
    assert paid["msg_code"] == "RESTAPI000", paid
    assert (await stack.call("/payment", tax(paid["data"]["calc_id"], "final")))["msg_code"] == "RESTAPI000"
    await wait_for(stack, [ported], {"ACTIVE"})
    events = await until_logged(stack, ported, "line.activated")
    kinds = [event.type for event in events]
    for kind in (
        "line.received",
        "line.customer_created",
        "port.submitted",
        "port.status_changed",
        "port.completed",
        "line.activated",
        "payment.recorded",
        "tax.collected",
    ):
        assert kind in kinds, kinds
    assert kinds.index("port.submitted") < kinds.index("port.completed") < kinds.index("line.activated")
    completed = json.loads(next(e.data for e in events if e.type == "port.completed"))
    activated = json.loads(next(e.data for e in events if e.type == "line.activated"))
    assert completed["ported_number"] == number == activated["mdn"]
    payment = json.loads(next(e.data for e in events if e.type == "payment.recorded"))
    assert payment["status"] == "APPROVED" and payment["invoice_number"]
    assert events[0].actor == "agent:demo.agent" and events[-1].actor == "lineup"
    assert [e.created for e in events] == sorted(e.created for e in events)


async def test_an_esim_and_a_line_activated_later(stack):
    esim = await stack.new_enrollment_id()
    created = await stack.call("/customer", create(esim, line(esim, is_esim="Y", phone_type="4G")))
    assert created["msg_code"] == "RESTAPI000", created
    assert "line.esim_assigned" in {e.type for e in await until_logged(stack, esim, "line.activated")}
    later = await waiting_line(stack)
    assert (await stack.call("/customer", body("activate_line", enrollment_id=later)))["msg_code"] == "RESTAPI000"
    events = await until_logged(stack, later, "line.activated_later")
    assert "line.activated" not in {e.type for e in events}


@pytest.mark.parametrize(
    "settings_overrides", [{"carrier_max_attempts": 1, "sync_wait_seconds": 1, "stuck_retry_minutes": 0.02}]
)
async def test_a_stuck_line_retried_by_its_own_timer_says_lineup_retried_it(stack):
    await stack.faults(fault_rate=1.0)
    enrollment_id = await stack.new_enrollment_id()
    assert (await stack.call("/customer", create(enrollment_id, line(enrollment_id))))["msg_code"] == "RESTAPI000"
    await until_logged(stack, enrollment_id, "line.stuck")
    await stack.faults(fault_rate=0)
    events = await until_logged(stack, enrollment_id, "line.activated")
    retried = [event for event in events if event.type == "line.retried"]
    assert retried and {event.actor for event in retried} == {"lineup"}
    stuck = json.loads(next(e.data for e in events if e.type == "line.stuck"))
    assert "unavailable" in stuck["error"]


@pytest.mark.parametrize("settings_overrides", [{"webhook_give_up_hours": 0.002, "webhook_max_backoff_seconds": 1}])
async def test_an_endpoint_failing_for_the_whole_budget_is_disabled_and_says_why(stack):
    registered = await register(stack, events="line.received")
    await receiver(stack, fail=True)
    try:
        enrollment_id = await stack.new_enrollment_id()
        assert (await stack.call("/customer", create(enrollment_id, line(enrollment_id))))["msg_code"] == "RESTAPI000"
        for _ in range(150):
            async with stack.db.transaction() as session:
                endpoint = await session.get(WebhookEndpoint, registered.endpoint.id)
                deliveries = (await session.exec(select(WebhookDelivery))).all()
            if endpoint is not None and not endpoint.active:
                break
            await asyncio.sleep(0.2)
    finally:
        await receiver(stack, fail=False)
    assert endpoint is not None and not endpoint.active
    assert endpoint.disabled_reason and "Every delivery failed since" in endpoint.disabled_reason
    assert "HTTP 503" in endpoint.disabled_reason
    assert [(d.status, d.attempts > 1) for d in deliveries] == [("FAILED", True)]
