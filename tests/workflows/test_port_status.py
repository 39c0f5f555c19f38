"""PortInWorkflow alone on the time-skipping server with stand-in activities registered under the real names:
a port submitted by its order is followed to its end and handed to the line (`finish_port`; a number given back
is released), one a line added after creation is submitted first (STUCK until a retry when the carrier is away,
rejected for good when it refuses), one the holder's account check stopped waits for corrections, and a
correction resubmits a port the carrier marked RESOLUTION_REQUIRED."""

from __future__ import annotations

import os
import secrets
from dataclasses import replace
from datetime import timedelta

import pytest
from temporalio import activity
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory
from temporalio.worker import Worker

from bench import actions
from models.enrollment.lines import CarrierCall, LineState, Pacing
from models.envelope import CARRIER_REJECTED, UNAVAILABLE
from models.porting import (
    PortCorrection,
    PortFinish,
    PortOutcome,
    PortResubmit,
    PortStart,
    PortSubmission,
    PortView,
    PortWatchPoll,
)
from workflows.porting import CARRIER_PUSHED, PortInWorkflow, poll_interval

HELD = PortView("RESOLUTION_REQUIRED", "6B", "Transfer PIN required or incorrect")


class FakeCarrier:
    """Answers port status by the skipped clock; records what the workflow persisted and handed to the line."""

    def __init__(
        self, env, *, complete_after: timedelta | None = None, resolution: bool = False, submit: str = "ok"
    ) -> None:
        self.env, self.complete_after, self.resolution, self.submit = env, complete_after, resolution, submit
        self.polls = 0
        self.recorded: list[str] = []
        self.resubmitted: list[str] = []
        self.submissions: list[CarrierCall] = []
        self.finished: list[PortFinish] = []
        self.released: list[str] = []
        self.statuses: list[str] = []
        self.started = None
        self.line_had: str | None = None  # an ACTIVE line's number before the port

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
        @activity.defn(name="submit_and_record")
        async def submit_and_record(call: CarrierCall) -> PortSubmission:
            self.submissions.append(call)
            now = (await self.env.get_current_time()).isoformat()
            if self.submit == "down":
                raise ApplicationError("The carrier is unavailable: HTTP 503", type=UNAVAILABLE)
            if self.submit == "refused":
                raise ApplicationError("930 Number not eligible for port-in", type=CARRIER_REJECTED, non_retryable=True)
            if self.submit == "held":
                return PortSubmission(None, now, HELD)
            return PortSubmission("P1", now)

        @activity.defn(name="watch_port")
        async def watch_port(poll: PortWatchPoll) -> PortView:
            """As PortingActivities.watch_port: news is recorded and returned, no news is a benign failure."""
            view = await self.answer()
            if view.status == poll.known.status and view.resolution_code == poll.known.resolution_code:
                raise ApplicationError("unchanged", type="PortUnchanged", category=ApplicationErrorCategory.BENIGN)
            self.recorded.append(view.status)
            return view

        @activity.defn(name="record_port_status")
        async def record_port_status(enrollment_id: str, view: PortView) -> None:
            self.recorded.append(view.status)

        @activity.defn(name="resubmit_port")
        async def resubmit_port(resubmit: PortResubmit) -> PortView:
            self.resubmitted.append(resubmit.idempotency_key)
            return PortView("SUBMITTED")

        @activity.defn(name="finish_port")
        async def finish_port(finish: PortFinish) -> PortOutcome:
            self.finished.append(finish)
            if finish.view.status != "COMPLETED":
                return PortOutcome("ACTIVE" if self.line_had else f"PORT_{finish.view.status}")
            return PortOutcome("ACTIVE", finish.view.mdn, released=self.line_had)

        @activity.defn(name="release_number")
        async def release_number(finish: PortFinish) -> None:
            assert finish.released is not None
            self.released.append(finish.released)

        @activity.defn(name="set_line_status")
        async def set_line_status(state: LineState) -> None:
            self.statuses.append(state.status)

        return [
            submit_and_record,
            watch_port,
            record_port_status,
            resubmit_port,
            finish_port,
            release_number,
            set_line_status,
        ]


def submitted(env_now) -> PortSubmission:
    return PortSubmission("P1", env_now.isoformat())


async def start(env, carrier, *, poll_seconds: float = 300.0, max_days: float = 14.0, **overrides):
    """A worker, its queue, and the input of a port its order submitted (unless `submitted=None`)."""
    queue = f"port-{secrets.token_hex(4)}"
    worker = Worker(env.client, task_queue=queue, workflows=[PortInWorkflow], activities=carrier.activities())
    now = await env.get_current_time()
    pacing = Pacing(carrier_max_attempts=1, port_poll_seconds=poll_seconds, port_max_days=max_days)
    values = {"submitted": submitted(now), **overrides}
    return worker, queue, PortStart("E1", "DEMO", pacing, **values)


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
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
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
    assert counted.timers == 0 and counted.local_activity_tasks == 1  # the port's end handed to the line
    # The start, the end and its search attributes, one per poll.
    assert counted.total == pytest.approx(carrier.polls + 3, abs=1)
    assert [finish.view.status for finish in carrier.finished] == ["COMPLETED"]


async def test_a_pushed_change_is_asked_for_at_once_not_at_the_next_poll(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(minutes=10))
    worker, queue, first = await start(time_skipping, carrier, poll_seconds=3600.0)  # the slow fallback
    async with worker:
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
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
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
        assert (await handle.result()).status == "COMPLETED"
        took = await lifetime(handle)
    assert carrier.polls == 2 and took >= timedelta(hours=1)


async def test_resolution_required_port_is_corrected_and_resumes(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(hours=1), resolution=True)
    worker, queue, first = await start(time_skipping, carrier)
    async with worker:
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
        await time_skipping.sleep(timedelta(minutes=6))
        assert (await handle.query(PortInWorkflow.status)).status == "RESOLUTION_REQUIRED"
        view = await handle.execute_update(PortInWorkflow.correct, PortCorrection("E1", "r1"))
        assert view.status == "SUBMITTED"
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update(PortInWorkflow.correct, PortCorrection("E1", "r2"))
        assert "corrections are accepted only when it is RESOLUTION_REQUIRED" in str(refused.value.cause)
        result = await handle.result()
    assert result.status == "COMPLETED"
    assert carrier.resubmitted == ["port-E1:resubmit:0"]
    assert carrier.recorded == ["RESOLUTION_REQUIRED", "SUBMITTED", "COMPLETED"]
    assert carrier.finished[0].view.mdn == "4045551234"


async def test_port_is_abandoned_after_the_limit(time_skipping):
    carrier = FakeCarrier(time_skipping)
    worker, queue, first = await start(time_skipping, carrier, max_days=3.0)
    async with worker:
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
        result = await handle.result()
    assert result.status == "ABANDONED"
    assert [finish.view.status for finish in carrier.finished] == ["ABANDONED"]


def rss_mib() -> float:
    with open(f"/proc/{os.getpid()}/status") as status:
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return kib / 1024


@pytest.mark.slow  # about 20 s: a thousand workflows started and polled on two cores
async def test_a_thousand_pending_ports_on_one_worker(time_skipping, record_property):
    carrier = FakeCarrier(time_skipping)
    worker, queue, first = await start(time_skipping, carrier)
    before = rss_mib()
    async with worker:
        handles = []
        for i in range(1000):
            pending = replace(first, enrollment_id=f"E{i}")
            handles.append(
                await time_skipping.client.start_workflow(
                    PortInWorkflow.run, pending, id=f"port-E{i}", task_queue=queue
                )
            )
        await time_skipping.sleep(timedelta(minutes=6))  # every port polls once and waits on its timer again
        assert carrier.polls >= 1000
        sample = [await h.query(PortInWorkflow.status) for h in handles[::100]]
        after = rss_mib()
    assert {view.status for view in sample} == {"SUBMITTED"}
    record_property("worker_rss_growth_mib", round(after - before, 1))
    print(f"\n1,000 pending ports: worker process RSS {before:.0f} MiB -> {after:.0f} MiB (+{after - before:.0f} MiB)")
    # About 0.12 MiB a waiting port (115 MiB on 2026-11-24, the worker's sticky cache included): a port that
    # held a third of a MiB, or memory that grew with its polls, would fail here.
    assert after - before < 300


async def test_a_port_added_after_creation_is_submitted_first_then_followed(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(minutes=12))
    worker, queue, first = await start(time_skipping, carrier, submitted=None)
    async with worker:
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
        started = await handle.execute_update(PortInWorkflow.submission)
        result = await handle.result()
    assert (started.status, started.port_id) == ("PORT_PENDING", "P1")
    assert [call.idempotency_key for call in carrier.submissions] == ["port-E1:port:0"]
    assert result.status == "COMPLETED" and carrier.released == []  # a waiting line had no number to give back


async def test_an_active_line_keeps_its_number_until_the_port_completes_then_releases_it(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(minutes=12))
    carrier.line_had = "4045550100"
    worker, queue, first = await start(time_skipping, carrier, submitted=None, line_active=True)
    async with worker:
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
        result = await handle.result()
        described = await handle.describe()
    assert result.status == "COMPLETED"
    assert carrier.statuses == []  # the ACTIVE line was never moved while its port ran
    assert carrier.released == ["4045550100"]
    attributes = {pair.key.name: pair.value for pair in described.typed_search_attributes}
    assert (attributes["LineStatus"], attributes["Mdn"]) == ("ACTIVE", "4045551234")


async def test_a_submission_the_carrier_does_not_take_is_stuck_until_retried(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(minutes=5), submit="down")
    worker, queue, first = await start(time_skipping, carrier, submitted=None)
    async with worker:
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
        started = await handle.execute_update(PortInWorkflow.submission)
        carrier.submit = "ok"
        await handle.signal(PortInWorkflow.retry)
        result = await handle.result()
    assert (started.status, started.port_id) == ("STUCK", None)
    assert "STUCK" in carrier.statuses and result.status == "COMPLETED"
    assert {call.idempotency_key for call in carrier.submissions} == {"port-E1:port:0"}


async def test_a_port_the_carrier_refuses_is_rejected_for_good(time_skipping):
    carrier = FakeCarrier(time_skipping, submit="refused")
    worker, queue, first = await start(time_skipping, carrier, submitted=None)
    async with worker:
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
        result = await handle.result()
    assert result.status == "REJECTED" and len(carrier.submissions) == 1
    assert [finish.view.status for finish in carrier.finished] == ["REJECTED"]


async def test_a_port_the_holders_check_stopped_waits_for_corrections_then_goes(time_skipping):
    carrier = FakeCarrier(time_skipping, complete_after=timedelta(minutes=5), submit="held")
    worker, queue, first = await start(time_skipping, carrier, submitted=None)
    async with worker:
        handle = await time_skipping.client.start_workflow(PortInWorkflow.run, first, id="port-E1", task_queue=queue)
        await time_skipping.sleep(timedelta(days=2))
        assert (await handle.query(PortInWorkflow.status)) == HELD  # never sent to the carrier meanwhile
        assert len(carrier.submissions) == 1 and carrier.polls == 0
        carrier.submit = "ok"
        view = await handle.execute_update(PortInWorkflow.correct, PortCorrection("E1", "r1"))
        result = await handle.result()
    assert view.status == "SUBMITTED" and result.status == "COMPLETED"
    assert len(carrier.submissions) == 2 and carrier.resubmitted == []  # checked again, then submitted
