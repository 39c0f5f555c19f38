"""PortStatusWorkflow on the time-skipping server with stand-in activities registered under the real names."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta

import pytest
from temporalio import activity
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory
from temporalio.worker import Worker

from bench import actions
from models.messages.porting import PortCorrection, PortPoll, PortResubmit, PortView, PortWatch, PortWatchPoll
from workflows.porting import CARRIER_PUSHED, PortStatusWorkflow, poll_interval


class FakeCarrier:
    """Answers port status by the skipped clock; records what the workflow persisted."""

    def __init__(self, env, *, complete_after: timedelta | None = None, resolution: bool = False) -> None:
        self.env, self.complete_after, self.resolution = env, complete_after, resolution
        self.polls = 0
        self.recorded: list[str] = []
        self.resubmitted: list[str] = []
        self.started = None

    async def answer(self) -> PortView:
        self.polls += 1
        now = await self.env.get_current_time()
        self.started = self.started or now
        if self.resolution and not self.resubmitted:
            return PortView("RESOLUTION_REQUIRED", "8A", "Account number required or incorrect")
        if self.complete_after is not None and now - self.started >= self.complete_after:
            return PortView("COMPLETED", mdn="4045551234", msid="1234567890", msl="123456")
        return PortView("SUBMITTED", response_datetime=now.isoformat())  # a new time on every answer

    def activities(self):
        @activity.defn(name="watch_port")
        async def watch_port(poll: PortWatchPoll) -> PortView:
            """As PortingActivities.watch_port: news is recorded and returned, no news is a benign failure."""
            view = await self.answer()
            if view.status == poll.known.status and view.resolution_code == poll.known.resolution_code:
                raise ApplicationError("unchanged", type="PortUnchanged", category=ApplicationErrorCategory.BENIGN)
            self.recorded.append(view.status)
            return view

        @activity.defn(name="port_status")
        async def port_status(poll: PortPoll) -> PortView:
            self.polls += 1
            now = await self.env.get_current_time()
            self.started = self.started or now
            if self.resolution and not self.resubmitted:
                return PortView("RESOLUTION_REQUIRED", "8A", "Account number required or incorrect")
            if self.complete_after is not None and now - self.started >= self.complete_after:
                return PortView("COMPLETED", mdn="4045551234", msid="1234567890", msl="123456")
            return PortView("SUBMITTED")

        @activity.defn(name="record_port_status")
        async def record_port_status(enrollment_id: str, view: PortView) -> None:
            self.recorded.append(view.status)

        @activity.defn(name="resubmit_port")
        async def resubmit_port(resubmit: PortResubmit) -> PortView:
            self.resubmitted.append(resubmit.idempotency_key)
            return PortView("SUBMITTED")

        return [watch_port, port_status, record_port_status, resubmit_port]


def watch(env_now, **overrides) -> PortWatch:
    values = {
        "enrollment_id": "E1",
        "vendor_code": "DEMO",
        "port_id": "P1",
        "submitted_at": env_now.isoformat(),
        "poll_seconds": 300.0,
        "max_days": 14.0,
    }
    values.update(overrides)
    return PortWatch(**values)


async def start(env, carrier, **overrides):
    queue = f"port-{secrets.token_hex(4)}"
    worker = Worker(env.client, task_queue=queue, workflows=[PortStatusWorkflow], activities=carrier.activities())
    now = await env.get_current_time()
    return worker, queue, watch(now, **overrides)


async def lifetime(handle) -> timedelta:
    """Start to completion by the history's own times (the test server's clock jumps once a workflow is done)."""
    events = (await handle.fetch_history()).events
    took: timedelta = events[-1].event_time.ToDatetime() - events[0].event_time.ToDatetime()
    return took


def test_poll_interval_backs_off_as_the_port_ages():
    assert [poll_interval(300, timedelta(hours=h)).total_seconds() for h in (1, 30, 100)] == [300, 600, 1200]


async def test_port_completes_after_two_days_of_polling(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(days=2))
    worker, queue, first = await start(time_skipping, carrier)
    async with worker:
        handle = await time_skipping.client.start_workflow(
            PortStatusWorkflow.run, first, id="port-E1", task_queue=queue
        )
        result = await handle.result()
        history = await handle.fetch_history()
    assert result.status == "COMPLETED" and result.mdn == "4045551234"
    # 288 polls on day one every 5 min, 144 on day two every 10 min, and the one that saw it complete.
    assert 430 <= carrier.polls <= 437
    # Unchanged answers (each with a new response time) recorded nothing: only the completion was.
    assert carrier.recorded == ["COMPLETED"]
    # Polls are retries of one activity per band of the port's age: no timer, no workflow task, no event each.
    events = history.to_json_dict()["events"]
    tasks = sum(1 for event in events if actions.kind(event) == "WORKFLOW_TASK_COMPLETED")
    assert tasks <= 4 and len(events) <= 30
    counted = actions.count(history.to_json_dict())
    assert counted.timers == 0 and counted.local_activity_tasks == 1  # the patch marker, on the first run only
    assert counted.total == pytest.approx(carrier.polls + 2, abs=1)  # the start, the marker, one per poll


async def test_a_pushed_change_is_asked_for_at_once_not_at_the_next_poll(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(minutes=10))
    worker, queue, first = await start(time_skipping, carrier, poll_seconds=3600.0)  # the slow fallback
    async with worker:
        handle = await time_skipping.client.start_workflow(
            PortStatusWorkflow.run, first, id="port-E1", task_queue=queue
        )
        await time_skipping.sleep(timedelta(minutes=11))
        assert carrier.polls == 1  # asked once at the start; the next poll is an hour away
        await handle.signal(CARRIER_PUSHED)
        result = await handle.result()
        took = await lifetime(handle)
    assert result.status == "COMPLETED" and carrier.recorded == ["COMPLETED"]
    assert carrier.polls == 2 and took < timedelta(minutes=30)


async def test_without_a_push_the_change_waits_for_the_fallback_poll(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(minutes=10))
    worker, queue, first = await start(time_skipping, carrier, poll_seconds=3600.0)
    async with worker:
        handle = await time_skipping.client.start_workflow(
            PortStatusWorkflow.run, first, id="port-E1", task_queue=queue
        )
        assert (await handle.result()).status == "COMPLETED"
        took = await lifetime(handle)
    assert carrier.polls == 2 and took >= timedelta(hours=1)


async def test_ports_started_before_poll_by_retry_keep_a_timer_per_poll(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(minutes=12))
    worker, queue, first = await start(time_skipping, carrier, by_retry=False)
    async with worker:
        handle = await time_skipping.client.start_workflow(
            PortStatusWorkflow.run, first, id="port-E1", task_queue=queue
        )
        assert (await handle.result()).status == "COMPLETED"
        counted = actions.count((await handle.fetch_history()).to_json_dict())
    assert counted.timers == carrier.polls == 4  # at 5, 10, 15 and 20 minutes


async def test_resolution_required_port_is_corrected_and_resumes(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(hours=1), resolution=True)
    worker, queue, first = await start(time_skipping, carrier)
    async with worker:
        handle = await time_skipping.client.start_workflow(
            PortStatusWorkflow.run, first, id="port-E1", task_queue=queue
        )
        await time_skipping.sleep(timedelta(minutes=6))
        assert (await handle.query(PortStatusWorkflow.status)).status == "RESOLUTION_REQUIRED"
        view = await handle.execute_update(PortStatusWorkflow.correct, PortCorrection("E1", "r1"))
        assert view.status == "SUBMITTED"
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update(PortStatusWorkflow.correct, PortCorrection("E1", "r2"))
        assert "corrections are accepted only when it is RESOLUTION_REQUIRED" in str(refused.value.cause)
        result = await handle.result()
    assert result.status == "COMPLETED"
    assert carrier.resubmitted == ["port-E1:resubmit:0"]
    assert carrier.recorded == ["RESOLUTION_REQUIRED", "SUBMITTED", "COMPLETED"]


async def test_port_is_abandoned_after_the_limit(time_skipping):
    carrier = FakeCarrier(time_skipping)
    worker, queue, first = await start(time_skipping, carrier, max_days=3.0)
    async with worker:
        handle = await time_skipping.client.start_workflow(
            PortStatusWorkflow.run, first, id="port-E1", task_queue=queue
        )
        result = await handle.result()
    assert result.status == "ABANDONED"
    assert carrier.recorded == ["ABANDONED"]


def rss_mib() -> float:
    with open(f"/proc/{os.getpid()}/status") as status:
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return kib / 1024


@pytest.mark.slow  # about 20 s: a thousand workflows started and polled on two cores
async def test_a_thousand_pending_ports_on_one_worker(time_skipping, record_property):
    carrier = FakeCarrier(time_skipping)
    worker, queue, _ = await start(time_skipping, carrier)
    before = rss_mib()
    async with worker:
        handles = []
        for i in range(1000):
            pending = watch(await time_skipping.get_current_time(), enrollment_id=f"E{i}")
            handles.append(
                await time_skipping.client.start_workflow(
                    PortStatusWorkflow.run, pending, id=f"port-E{i}", task_queue=queue
                )
            )
        await time_skipping.sleep(timedelta(minutes=6))  # every port polls once and waits on its timer again
        assert carrier.polls >= 1000
        sample = [await h.query(PortStatusWorkflow.status) for h in handles[::100]]
        after = rss_mib()
    assert {view.status for view in sample} == {"SUBMITTED"}
    record_property("worker_rss_growth_mib", round(after - before, 1))
    print(f"\n1,000 pending ports: worker process RSS {before:.0f} MiB -> {after:.0f} MiB (+{after - before:.0f} MiB)")
    # About 0.12 MiB a waiting port (115 MiB on 2026-11-24, the worker's sticky cache included): a port that
    # held a third of a MiB, or memory that grew with its polls, would fail here.
    assert after - before < 300
