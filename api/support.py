"""Signals the API and the CLI send to running workflows: support's retry of a stuck line."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import timedelta

# services/support/retries.py: The support domain's `/ops`: support staff list the lines waiting for them (STUCK, or RECEIVED and never
from temporalio.client import Client
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from api.access import ALL_SOURCES
from api.dispatch import Context, action
from api.enrollment import NO_CUSTOMER
from api.temporal import outside_system
from models import enrollment, events
from models.db import Session
from models.enrollment import EnrollmentOrder, Line, LineStatus, Pacing, orders_of, vendor_line
from models.envelope import refuse
from models.settings import Settings
from models.support import (
    RETRIED,
    STUCK,
    ListStuckEnrollments,
    Retried,
    RetriedAll,
    RetryEnrollment,
    StuckLine,
    Waiting,
    claim_retries,
    count_waiting,
    release_retries,
    shown_error,
    waiting_lines,
)
from models.types import utcnow
from workflows.enrollment import EnrollmentWorkflow, LineWorkflow, line_workflow_id, port_workflow_id, start_options
from workflows.porting import PortInWorkflow


async def retry_line(client: Client, line: Line) -> None:
    """A PORTIN line is stuck submitting its port (PortInWorkflow's step); any other on its activation."""
    if line.activation_type == "PORTIN":
        await client.get_workflow_handle(port_workflow_id(line.enrollment_id)).signal(PortInWorkflow.retry)
    else:
        await client.get_workflow_handle(line_workflow_id(line.enrollment_id)).signal(LineWorkflow.retry)


log = logging.getLogger("lineup.ops")


SUPPORT = "support"  # the role support operations need


MOST_RETRIED = 500  # lines one bulk retry resumes; the answer says how many remain for the next call


AT_ONCE = 20  # calls to Temporal in flight at once during a bulk retry


WAITING = frozenset({LineStatus.STUCK, LineStatus.RECEIVED})


# The engine's answers that leave one line out of a retry rather than fail it: the workflow is gone, or a
# limit of its own (signals per workflow, history size) refuses more. Anything else is the engine away.
LEFT_OUT = frozenset(
    {
        RPCStatusCode.NOT_FOUND,
        RPCStatusCode.RESOURCE_EXHAUSTED,
        RPCStatusCode.FAILED_PRECONDITION,
        RPCStatusCode.INVALID_ARGUMENT,
    }
)


Opener = Callable[[], AbstractAsyncContextManager[Session]]


@dataclass(frozen=True)
class ToResume:
    """Lines to retry, with the orders of those never started rebuilt from their lines."""

    lines: list[Line]
    orders: list[EnrollmentOrder] = field(default_factory=list)
    remaining: int = 0  # matching lines left for the next bulk retry
    claimed: list[str] = field(default_factory=list)  # stuck lines this retry moved to RETRYING (only these)


def waiting(settings: Settings, *, error_contains: str | None = None, stuck_minutes: int | None = None) -> Waiting:
    """Which lines wait for support now; a RECEIVED line within the sweep's grace may still be starting."""
    now = utcnow()
    since = now - timedelta(minutes=stuck_minutes) if stuck_minutes else None
    return Waiting(now - timedelta(seconds=settings.sweep.grace_seconds), error_contains, since)


@action("ops", sources=ALL_SOURCES, role=SUPPORT, example=STUCK)
async def list_stuck_enrollments(*, body: ListStuckEnrollments, ctx: Context) -> list[StuckLine]:
    """The vendor's lines waiting for support (STUCK, or RECEIVED and never started), with their last error,
    longest waiting first."""
    async with ctx.uow.transaction() as session:
        lines = await waiting_lines(session, waiting(ctx.settings), vendor_id=ctx.caller.vendor_id, limit=body.limit)
    return [
        StuckLine(
            enrollment_id=line.enrollment_id,
            parent_enrollment_id=line.parent_enrollment_id,
            status=line.status,
            last_error=shown_error(line),
            since=line.status_since.isoformat(),
        )
        for line in lines
    ]


@action("ops", sources=ALL_SOURCES, role=SUPPORT, example=RETRIED)
async def retry_enrollment(*, body: RetryEnrollment, ctx: Context) -> Retried | RetriedAll:
    """Resumes one waiting line (`enrollment_id`), or with `all_stuck` Y every matching waiting line of the
    vendor (narrowed by `error_contains` and `stuck_minutes`), at most MOST_RETRIED a call: a stuck line's
    workflow tries its failed step again, a line that never started has its order's workflow started."""
    vendor_id, pacing = ctx.caller.vendor_id, Pacing.of(ctx.settings)
    async with ctx.uow.transaction() as session:
        if body.bulk:
            matching = waiting(ctx.settings, error_contains=body.error_contains, stuck_minutes=body.stuck_minutes)
            found = await all_waiting(session, matching, vendor_id=vendor_id, pacing=pacing)
        else:
            assert body.enrollment_id is not None  # the request model requires one without all_stuck Y
            found = await one_waiting(session, body.enrollment_id, vendor_id=vendor_id, pacing=pacing)
        enrollment.retry_requested(session, found.lines, actor=events.support(ctx.caller.agent_username))  # issue 21
    # Nothing to resume needs no workflow engine: an empty bulk retry answers even while it is away.
    retried = []
    if found.lines:
        client = await ctx.temporal_client()
        retried = await resume(
            found,
            client=client,
            task_queue=ctx.task_queue,
            rpc_seconds=ctx.settings.temporal.rpc_seconds,
            transaction=ctx.uow.transaction,
        )
    if body.bulk:
        return RetriedAll(retried=retried, remaining=found.remaining)
    [line] = found.lines
    if not retried:
        raise refuse(f"Enrollment {line.enrollment_id} has no workflow to retry", rest_status=409)
    return Retried(enrollment_id=line.enrollment_id, status="RETRYING" if found.claimed else "STARTED")


async def one_waiting(session: Session, enrollment_id: str, *, vendor_id: int | None, pacing: Pacing) -> ToResume:
    """The line, if it waits for support (vendor_id None: any vendor's); otherwise the refusal saying why."""
    line = await vendor_line(session, enrollment_id, vendor_id=vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.status == LineStatus.RETRYING:
        raise refuse(already_retrying(enrollment_id), rest_status=409)
    if line.status not in WAITING:
        raise refuse(f"Enrollment {enrollment_id} is not stuck (status {line.status})", rest_status=409)
    if line.status == LineStatus.STUCK:
        if not await claim_retries(session, [enrollment_id]):  # another retry took it first
            raise refuse(already_retrying(enrollment_id), rest_status=409)
        return ToResume([line], claimed=[enrollment_id])
    # A RECEIVED line is started whatever its age: a start finds the run its own request may have begun.
    return ToResume([line], await orders_of(session, [line.order_id], pacing=pacing))


def already_retrying(enrollment_id: str) -> str:
    return f"Enrollment {enrollment_id} is already being retried"


async def all_waiting(session: Session, matching: Waiting, *, vendor_id: int | None, pacing: Pacing) -> ToResume:
    """The first MOST_RETRIED matching lines, longest waiting first, and how many more match."""
    lines = await waiting_lines(session, matching, vendor_id=vendor_id, limit=MOST_RETRIED)
    total = len(lines) if len(lines) < MOST_RETRIED else await count_waiting(session, matching, vendor_id=vendor_id)
    never_started = list(dict.fromkeys(line.order_id for line in lines if line.status == LineStatus.RECEIVED))
    # Stuck lines another retry took meanwhile are left to it.
    claimed = await claim_retries(session, [line.enrollment_id for line in lines if line.status == LineStatus.STUCK])
    taken = [line for line in lines if line.status == LineStatus.RECEIVED or line.enrollment_id in claimed]
    orders = await orders_of(session, never_started, pacing=pacing)
    return ToResume(taken, orders, total - len(lines), sorted(claimed))


async def resume(
    found: ToResume, *, client: Client, task_queue: str, rpc_seconds: float, transaction: Opener
) -> list[str]:
    """Signals each claimed stuck line's workflow to try again and starts each never-started order (or finds
    it running); answers the enrollment ids now on their way. A stuck line whose workflow is gone, or whose
    workflow the engine refuses for one of its limits, is left out (one line: refused, saying which); a retry
    that did not reach its workflow leaves its line STUCK again."""
    slots = asyncio.Semaphore(AT_ONCE)
    refused: dict[str, str] = {}

    async def signal(line: Line) -> str | None:
        async with slots:
            try:
                await retry_line(client, line)
            except RPCError as error:
                if error.status not in LEFT_OUT:
                    raise
                refused[line.enrollment_id] = refusal_of(line.enrollment_id, error)
                log.warning(
                    "stuck line not retried: %s",
                    refused[line.enrollment_id],
                    extra={"fields": {"enrollment_id": line.enrollment_id}},
                )
                return None
        return line.enrollment_id

    async def start(order: EnrollmentOrder) -> None:
        async with slots:
            await start_order(client, order, task_queue=task_queue)

    stuck = [line for line in found.lines if line.enrollment_id in found.claimed]
    try:
        async with outside_system("The workflow engine", within=2 * rpc_seconds):
            outcomes = await asyncio.gather(
                *(signal(line) for line in stuck), *(start(order) for order in found.orders), return_exceptions=True
            )
            for outcome in outcomes:  # every call has ended: the first failure says what is down
                if isinstance(outcome, BaseException):
                    raise outcome
    except BaseException:
        async with transaction() as session:
            await release_retries(session, found.claimed)
        raise
    signalled = {outcome for outcome in outcomes[: len(stuck)] if isinstance(outcome, str)}
    if refused:
        async with transaction() as session:
            await release_retries(session, sorted(refused))
    if len(found.lines) == 1 and refused:
        raise refuse(*refused.values(), rest_status=409)
    started = {line_id for order in found.orders for line_id in order.enrollment_ids}
    return [line.enrollment_id for line in found.lines if line.enrollment_id in signalled | started]


def refusal_of(enrollment_id: str, error: RPCError) -> str:
    """What the engine said, as it is: a workflow gone, or one of its limits (signals, history size)."""
    if error.status == RPCStatusCode.NOT_FOUND:
        return f"Enrollment {enrollment_id} has no workflow to retry"
    return f"The workflow engine refused the retry of enrollment {enrollment_id}: {error.message}"


async def start_order(client: Client, order: EnrollmentOrder, *, task_queue: str) -> bool:
    """True when the order's workflow was started here, False when it is already running (or has ended)."""
    try:
        await client.start_workflow(EnrollmentWorkflow.run, order, task_queue=task_queue, **start_options(order))
    except WorkflowAlreadyStartedError:
        return False
    return True
