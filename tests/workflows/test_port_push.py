"""The carrier's port-status push (issue 20 target 3): the sandbox pushes each change, signed; Lineup's
`/carrier/port-status` checks the signature and the port, and signals the port's workflow, which asks the
carrier at once: with pushes on, a port completes without waiting for its (hour-long) fallback poll."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from api.porting import signature
from tests.support.ports import carrier_port_id, done_at_the_carrier, ported_line, query, wait_for_port
from tests.support.temporal import sandbox_server
from tests.support.waiting import eventually

SECRET = "push-secret-1"
PUSHES = {"port_push_secret": SECRET, "port_push_fallback_seconds": 3600.0}


async def test_the_sandbox_pushes_each_status_change_signed(tmp_path):
    (tmp_path / "receiver").mkdir()
    (tmp_path / "carrier").mkdir()
    async with sandbox_server(tmp_path / "receiver") as receiver:
        push_url = f"{receiver}/sandbox/webhooks"
        async with (
            sandbox_server(
                tmp_path / "carrier", port_complete_seconds=1.0, port_push_url=push_url, port_push_secret=SECRET
            ) as carrier,
            httpx.AsyncClient() as http,
        ):
            order = {
                "vendor_id": "DEMO",
                "enrollment_id": "E1",
                "port_number": "4045551234",
                "account_number": "ACC12345",
                "account_password": "1234",
            }
            submitted = await http.post(f"{carrier}/carrier/ports", json=order, headers={"Idempotency-Key": "k1"})
            port_id = submitted.json()["PORT_ID"]

            async def pushes() -> list[dict[str, Any]]:
                found: list[dict[str, Any]] = (await http.get(f"{receiver}/sandbox/webhooks")).json()
                return found

            received = await eventually(pushes, lambda found: len(found) >= 2, what="two pushes")
    # Each change is pushed as it happens, each push on its own: they may arrive in either order (so Lineup reads
    # a push as "look now", never as the port's latest status).
    assert sorted((json.loads(push["body"]) for push in received), key=lambda push: push["status"]) == [
        {"vendor_id": "DEMO", "port_id": port_id, "enrollment_id": "E1", "status": status}
        for status in ("COMPLETED", "CONFIRMED")
    ]
    for push in received:
        signed = push["headers"]["x-carrier-signature"]
        timestamp = int(signed.split(",")[0].removeprefix("t="))
        assert abs(time.time() - timestamp) < 60 and signed == signature(SECRET, push["body"].encode(), timestamp)


def push_body(enrollment_id: str, port_id: str, vendor: str = "DEMO", status: str = "X") -> bytes:
    return json.dumps(
        {"vendor_id": vendor, "port_id": port_id, "enrollment_id": enrollment_id, "status": status}
    ).encode()


async def pushed(stack, body: bytes, secret: str = SECRET, at: int | None = None) -> httpx.Response:
    timestamp = int(time.time()) if at is None else at
    headers = {"X-Carrier-Signature": signature(secret, body, timestamp), "Content-Type": "application/json"}
    answer: httpx.Response = await stack.http.post("/carrier/port-status", content=body, headers=headers)
    return answer


@pytest.mark.parametrize("settings_overrides", [PUSHES])
async def test_a_push_makes_the_port_complete_without_waiting_for_the_fallback_poll(stack):
    enrollment_id, sim, number = await ported_line(stack)
    port_id = await done_at_the_carrier(stack, enrollment_id)  # and Lineup does not know: its next poll is an hour away
    assert (await stack.call("/port", query(enrollment_id, sim, number)))["data"]["records"][0][
        "portin_status"
    ] != "COMPLETED"
    answer = await pushed(stack, push_body(enrollment_id, port_id))
    assert (answer.status_code, answer.json()["msg_code"]) == (200, "RESTAPI000")
    await wait_for_port(stack, query(enrollment_id, sim, number), "COMPLETED", within=10)


@pytest.mark.parametrize("settings_overrides", [PUSHES])
async def test_a_push_is_refused_unsigned_or_for_another_port(stack):
    enrollment_id, _, _ = await ported_line(stack)
    port_id = await carrier_port_id(stack, enrollment_id)
    wrong = await pushed(stack, push_body(enrollment_id, port_id), secret="not-the-secret")
    assert (wrong.status_code, wrong.json()["msg"]) == (401, "Invalid signature")
    other = await pushed(stack, push_body(enrollment_id, "PRT0000000000"))
    assert (other.status_code, other.json()["msg"]) == (404, "Port not found")
    bad = await pushed(stack, b'{"port_id": 1}')
    assert (bad.status_code, bad.json()["msg"]) == (400, "Invalid port status push")


async def test_pushes_are_refused_when_no_secret_is_set(api):
    refused = await api.http.post("/carrier/port-status", content=push_body("E1", "P1"))
    assert (refused.status_code, refused.json()["msg"]) == (404, "Port status pushes are not enabled")


async def carrier_pushed_signals(stack, enrollment_id: str) -> int:
    from temporalio.api.enums.v1 import EventType

    from workflows.enrollment import port_workflow_id
    from workflows.porting import CARRIER_PUSHED

    handle = stack.env.client.get_workflow_handle(port_workflow_id(enrollment_id))
    return len(
        [
            event
            async for event in handle.fetch_history_events()
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
            and event.workflow_execution_signaled_event_attributes.signal_name == CARRIER_PUSHED
        ]
    )


@pytest.mark.parametrize("settings_overrides", [{**PUSHES, "port_push_polls_per_hour": 2}])
async def test_a_push_is_taken_once_fresh_from_its_vendor_and_polls_within_a_limit(stack):
    """Issue 27, finding 9: one signed push replayed 3,000 times was taken 3,000 times (~370 extra carrier polls),
    and its vendor_id was not checked."""
    enrollment_id, _, _ = await ported_line(stack)
    port_id = await carrier_port_id(stack, enrollment_id)
    push, now = push_body(enrollment_id, port_id), int(time.time())
    for _ in range(50):  # the port's workflow may not be following it yet
        first = await pushed(stack, push, at=now)
        if first.json()["msg"] != "Port is no longer followed":
            break
        await asyncio.sleep(0.2)
    assert (first.status_code, first.json()["msg"]) == (200, "Port status push received")
    replays = await asyncio.gather(*(pushed(stack, push, at=now) for _ in range(20)))
    assert {(r.status_code, r.json()["msg"]) for r in replays} == {(200, "Port status push already received")}
    stale = await pushed(stack, push, at=int(time.time()) - 301)
    assert (stale.status_code, stale.json()["msg"]) == (401, "Signature timestamp outside the tolerance")
    ahead = await pushed(stack, push, at=int(time.time()) + 302)
    assert (ahead.status_code, ahead.json()["msg"]) == (401, "Signature timestamp outside the tolerance")
    old_form = await stack.http.post(
        "/carrier/port-status", content=push, headers={"X-Carrier-Signature": "sha256=" + "0" * 64}
    )
    assert (old_form.status_code, old_form.json()["msg"]) == (401, "Invalid signature")
    other_vendor = await pushed(stack, push_body(enrollment_id, port_id, vendor="OTHER"))
    assert (other_vendor.status_code, other_vendor.json()["msg"]) == (404, "Port not found")
    second = await pushed(stack, push_body(enrollment_id, port_id, status="CONFIRMED"), at=now + 1)
    assert second.json()["msg"] == "Port status push received"
    third = await pushed(stack, push_body(enrollment_id, port_id, status="COMPLETED"), at=now + 2)
    assert (third.status_code, third.json()["msg"]) == (
        200,
        "Port status push received; the port was asked recently, its next poll will see the change",
    )
    for _ in range(50):  # the two signals reach the history
        if await carrier_pushed_signals(stack, enrollment_id) >= 2:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    assert await carrier_pushed_signals(stack, enrollment_id) == 2  # 25 pushes, 2 polls asked for
