"""Signed webhooks (issue 21): every event of a vendor's line reaches its endpoint, signed, through a receiver
outage and a worker killed mid-delivery; duplicates carry the same id and body, so de-duplication by `id` is safe,
and one line's order is recoverable from `created`."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from sqlmodel import col, select

from models.events import LineEvent, WebhookDelivery
from tests.support.builders import create, line, new_iccid
from tests.support.lines import wait_for
from tests.support.webhooks import received, receiver, register, verified
from tests.support.worker_process import kill, own_queue, worker_process
from workflows.webhooks import dispatch_workflow_id


async def logged(stack: Any, enrollment_id: str) -> list[LineEvent]:
    async with stack.db.transaction() as session:
        query = select(LineEvent).where(LineEvent.enrollment_id == enrollment_id).order_by(col(LineEvent.id))
        return list((await session.exec(query)).all())


async def until_all_arrive(stack: Any, enrollment_id: str, within: float = 90.0) -> list[dict[str, Any]]:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        wanted = {event.public_id for event in await logged(stack, enrollment_id)}
        got = await received(stack, {enrollment_id})
        if wanted and wanted <= {json.loads(item["body"])["id"] for item in got}:
            return got
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{len(wanted)} events, {len(got)} deliveries")
        await asyncio.sleep(0.5)


async def until_all_delivered(stack: Any, within: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        async with stack.db.transaction() as session:
            statuses = {d.status for d in (await session.exec(select(WebhookDelivery))).all()}
        if statuses == {"DELIVERED"}:
            return
        assert asyncio.get_running_loop().time() < deadline, statuses
        await asyncio.sleep(0.5)


async def test_every_event_arrives_signed_once_by_id_in_order(stack):
    endpoint = await register(stack)
    enrollment_id = await stack.new_enrollment_id()
    answer = await stack.call("/customer", create(enrollment_id, line(enrollment_id, uiccid=new_iccid())))
    assert answer["msg_code"] == "RESTAPI000", answer
    await wait_for(stack, [enrollment_id], {"ACTIVE"})
    got = await until_all_arrive(stack, enrollment_id)
    events = await logged(stack, enrollment_id)
    types = [event.type for event in events]
    assert types[:3] == ["line.received", "line.sim_attached", "line.customer_created"]
    assert "line.activation_attempted" in types and types[-1] == "line.activated"
    bodies = [json.loads(item["body"]) for item in got]
    assert all(verified(item, endpoint.secret) for item in got)
    assert not verified({**got[0], "body": got[0]["body"].replace("line.", "lime.")}, endpoint.secret)
    assert set(bodies[0]) == {"id", "type", "created", "data"}
    activated = next(body for body in bodies if body["type"] == "line.activated")
    assert activated["data"]["mdn"] and activated["data"]["enrollment_id"] == enrollment_id
    by_created = [body["type"] for body in sorted({b["id"]: b for b in bodies}.values(), key=lambda b: b["created"])]
    assert by_created == types


@pytest.mark.parametrize("settings_overrides", [{"sync_wait_seconds": 1.0}])
async def test_a_receiver_outage_and_a_worker_killed_mid_delivery_lose_nothing(stack, monkeypatch):
    monkeypatch.setenv("LINEUP_WEBHOOK_MAX_BACKOFF_SECONDS", "2")  # the worker processes' retries, for the test
    # Only the worker processes started here deliver: the stack's own dispatcher stops.
    await stack.env.client.get_workflow_handle(dispatch_workflow_id(stack.app.state.settings)).terminate()
    own_queue(stack, "hooks")
    endpoint = await register(stack)
    await receiver(stack, fail=True)
    try:
        with worker_process(stack) as first:
            enrollment_id = await stack.new_enrollment_id()
            created = await stack.call("/customer", create(enrollment_id, line(enrollment_id)))
            assert created["msg_code"] == "RESTAPI000", created
            await wait_for(stack, [enrollment_id], {"ACTIVE"})
            for _ in range(60):  # deliveries fail and back off while the receiver is down
                async with stack.db.transaction() as session:
                    tried = (await session.exec(select(WebhookDelivery).where(WebhookDelivery.attempts > 1))).all()
                if tried:
                    break
                await asyncio.sleep(0.5)
            assert tried and all(d.status != "DELIVERED" for d in tried)
            await receiver(stack, fail=False, latency_ms=6000)  # back, slowly: deliveries are in flight …
            for _ in range(100):
                if await received(stack, {enrollment_id}):
                    break
                await asyncio.sleep(0.1)
            kill(first)  # … when the worker dies: the receiver has a body whose answer never got back
        await receiver(stack, latency_ms=0)
        with worker_process(stack):
            await until_all_arrive(stack, enrollment_id)
            await until_all_delivered(stack)  # the attempt the kill cut short was retried: it came twice
            got = await received(stack, {enrollment_id})
    finally:
        await receiver(stack, fail=False, latency_ms=0)
    events = await logged(stack, enrollment_id)
    by_id: dict[str, set[str]] = {}
    for item in got:
        by_id.setdefault(json.loads(item["body"])["id"], set()).add(item["body"])
    assert set(by_id) == {event.public_id for event in events}  # every event arrived
    assert all(len(copies) == 1 for copies in by_id.values())  # a repeat is the same body: de-dup by id is safe
    assert len(got) > len(by_id)  # the delivery in flight at the kill was sent again (at least once)
    assert all(verified(item, endpoint.secret) for item in got)
    unique = [json.loads(next(iter(copies))) for copies in by_id.values()]
    assert [body["id"] for body in sorted(unique, key=lambda body: body["created"])] == [e.public_id for e in events]
    print(f"\n{len(events)} events, {len(got)} deliveries received ({len(got) - len(events)} repeats)")
