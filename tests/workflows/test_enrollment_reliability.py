"""Stuck lines and support retries, a flaky carrier, and a worker killed mid-activation."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import col, select

from models.enrollment.lines import Line
from tests.support.builders import body, create, line, new_iccid
from tests.support.lines import SUPPORT, activations_sent, lines_by_status, sandbox_lines, wait_for
from tests.support.waiting import eventually
from tests.support.worker_process import kill, own_queue, worker_process
from workflows.enrollment import LineWorkflow


async def test_rejected_line_is_stuck_then_completes_once_after_a_support_retry(stack):
    sim = new_iccid()
    earlier = await stack.new_enrollment_id()
    assert (await stack.call("/customer", create(earlier, line(earlier, phone_type="4G", uiccid=sim))))[
        "msg_code"
    ] == "RESTAPI000"

    parent, second = await stack.new_enrollment_id(), await stack.new_enrollment_id()
    created = await stack.call("/customer", create(parent, line(parent), line(second, phone_type="4G", uiccid=sim)))
    entries = {e["data"]["enrollment_id"]: e for e in created["data"]}
    assert entries[parent]["data"]["mdn"]
    assert entries[second]["data"]["mdn"] is None
    assert entries[second]["msg"] == "Customer created; activation is waiting for support"

    stuck = await stack.call("/ops", body("list_stuck_enrollments", **SUPPORT))
    assert [(s["enrollment_id"], s["last_error"]) for s in stuck["data"]] == [(second, "915 SIM already in use")]
    described = await stack.env.client.get_workflow_handle(f"line-{second}").describe()
    assert described.typed_search_attributes.get(__import__("workflows.enrollment").enrollment.LINE_STATUS) == "STUCK"

    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})  # support freed the SIM
    retried = await stack.call("/ops", body("retry_enrollment", enrollment_id=second, **SUPPORT))
    assert retried["data"] == {"enrollment_id": second, "status": "RETRYING"}
    result = await stack.env.client.get_workflow_handle_for(LineWorkflow.run, f"line-{second}").result()
    assert result.status == "ACTIVE" and result.mdn
    assert [(row["iccid"], row["status"]) for row in await sandbox_lines(stack, second)] == [(sim, "ACTIVE")]
    again = await stack.call("/ops", body("retry_enrollment", enrollment_id=second, **SUPPORT))
    assert again["errors"] == [f"Enrollment {second} is not stuck (status ACTIVE)"]
    assert (await stack.call("/ops", body("list_stuck_enrollments", **SUPPORT)))["data"] == []


@pytest.mark.parametrize("settings_overrides", [{"carrier_max_attempts": 2, "sync_wait_seconds": 1}])
async def test_flaky_carrier_every_line_completes_or_completes_after_retry(stack):
    await stack.faults(fault_rate=0.3)
    orders = [[await stack.new_enrollment_id() for _ in range(2)] for _ in range(6)]
    answers = await asyncio.gather(
        *(stack.call("/customer", create(ids[0], *(line(i) for i in ids))) for ids in orders)
    )
    assert all(a["msg_code"] == "RESTAPI000" for a in answers), answers
    ids = [i for order in orders for i in order]
    await wait_for(stack, ids, {"ACTIVE", "STUCK"})
    await stack.faults(fault_rate=0)
    for enrollment_id, status in (await lines_by_status(stack, ids)).items():
        if status == "STUCK":
            retried = await stack.call("/ops", body("retry_enrollment", enrollment_id=enrollment_id, **SUPPORT))
            assert retried["msg_code"] == "RESTAPI000", retried
    await wait_for(stack, ids, {"ACTIVE"})
    for enrollment_id in ids:
        assert len(await sandbox_lines(stack, enrollment_id)) == 1
    async with stack.db.transaction() as session:
        mdns = [row.mdn for row in (await session.exec(select(Line).where(Line.enrollment_id.in_(ids)))).all()]  # type: ignore[attr-defined]
    assert len(set(mdns)) == len(ids) and None not in mdns


@pytest.mark.parametrize("settings_overrides", [{"sync_wait_seconds": 0.5}])
async def test_worker_killed_mid_activation_every_line_active_once(stack):
    """The in-process worker polls another queue; this test's lines run on a subprocess worker."""
    own_queue(stack, "killable")
    await stack.faults(latency_ms=1500)
    with worker_process(stack) as first:
        ids = [await stack.new_enrollment_id() for _ in range(4)]
        call = asyncio.create_task(stack.call("/customer", create(ids[0], *(line(i) for i in ids))))
        await eventually(lambda: activations_sent(stack, ids), what="the activations at the carrier")
        kill(first)  # while the carrier (1.5 s slow) holds them
        with worker_process(stack):
            assert (await call)["msg_code"] == "RESTAPI000"
            await stack.faults(latency_ms=0)
            await wait_for(stack, ids, {"ACTIVE"}, within=60)
    for enrollment_id in ids:
        held = await sandbox_lines(stack, enrollment_id)
        assert len(held) == 1, held
    async with stack.db.transaction() as session:
        mdns = {
            row.enrollment_id: row.mdn
            for row in (await session.exec(select(Line).where(col(Line.enrollment_id).in_(ids)))).all()
        }
    assert {i: (await sandbox_lines(stack, i))[0]["mdn"] for i in ids} == mdns
