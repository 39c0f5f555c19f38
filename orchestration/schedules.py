"""The sweep's schedule (`<task queue>-sweep`): every worker creates it as it starts, or brings it up to date
(the settings may have changed); a 0 s interval removes it."""

from __future__ import annotations

from contextlib import suppress
from datetime import timedelta

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleUpdate,
    ScheduleUpdateInput,
)
from temporalio.service import RPCError

from models.messages.enrollment import Pacing
from models.messages.support import Sweep
from models.settings import Settings
from workflows.support import SweepWorkflow


def sweep_schedule_id(settings: Settings) -> str:
    """`lineup-sweep` by default: named after the task queue, as deployments sharing a namespace are."""
    return f"{settings.temporal.task_queue}-sweep"


def sweep_schedule(settings: Settings) -> Schedule:
    sweep = Sweep(
        settings.sweep.grace_seconds,
        settings.auth.token_retention_hours,
        Pacing.of(settings),
        proof_retention_days=settings.auth.proof_retention_days,
    )
    return Schedule(
        action=ScheduleActionStartWorkflow(
            SweepWorkflow.run, sweep, id=sweep_schedule_id(settings), task_queue=settings.temporal.task_queue
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=timedelta(seconds=settings.sweep.interval_seconds))]),
        # A sweep still running when the next is due makes the next unnecessary.
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )


async def ensure_sweep_schedule(client: Client, settings: Settings) -> None:
    """Every worker does this as it starts, so the last one started sets the interval; 0 s removes the schedule."""
    if settings.sweep.interval_seconds <= 0:
        with suppress(RPCError):  # there was none
            await client.get_schedule_handle(sweep_schedule_id(settings)).delete()
        return
    schedule = sweep_schedule(settings)
    try:
        await client.create_schedule(sweep_schedule_id(settings), schedule)
    except ScheduleAlreadyRunningError:

        def replace(_: ScheduleUpdateInput) -> ScheduleUpdate:
            return ScheduleUpdate(schedule=schedule)

        await client.get_schedule_handle(sweep_schedule_id(settings)).update(replace)
