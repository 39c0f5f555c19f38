"""PortStatusWorkflow on the time-skipping server with stand-in activities registered under the real names."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta

import pytest
from temporalio import activity
from temporalio.client import WorkflowUpdateFailedError
from temporalio.worker import Worker

from models.messages.porting import PortCorrection, PortPoll, PortResubmit, PortView, PortWatch
from workflows.porting import PortStatusWorkflow, poll_interval


class FakeCarrier:
    """Answers port status by the skipped clock; records what the workflow persisted."""

    def __init__(self, env, *, complete_after: timedelta | None = None, resolution: bool = False) -> None:
        self.env, self.complete_after, self.resolution = env, complete_after, resolution
        self.polls = 0
        self.recorded: list[str] = []
        self.resubmitted: list[str] = []
        self.started = None

    def activities(self):
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

        return [port_status, record_port_status, resubmit_port]


def watch(env_now, **overrides) -> PortWatch:
    values = {
        "enrollment_id": "E1", "vendor_code": "DEMO", "port_id": "P1", "submitted_at": env_now.isoformat(),
        "poll_seconds": 300.0, "max_days": 14.0,
    }  # fmt: skip
    values.update(overrides)
    return PortWatch(**values)


async def start(env, carrier, **overrides):
    queue = f"port-{secrets.token_hex(4)}"
    worker = Worker(env.client, task_queue=queue, workflows=[PortStatusWorkflow], activities=carrier.activities())
    now = await env.get_current_time()
    return worker, queue, watch(now, **overrides)


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
        described = await handle.describe()
    assert result.status == "COMPLETED" and result.mdn == "4045551234"
    # 288 polls on day one every 5 min, 144 on day two every 10 min, and the one that saw it complete.
    assert 430 <= carrier.polls <= 436
    assert carrier.recorded == ["COMPLETED"]
    assert described.run_id != handle.first_execution_run_id  # continued as new: the history stays small


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
