"""The support domain's actions (`/ops`): the lines waiting for support, and the retry that resumes one or
every matching one. The console and `lineup ops retry` resume lines through the same functions: `take` reads
what a retry decides on, decides in plain code (`decide`) and claims the stuck lines; `resume` then signals
their workflows and starts the orders that never started."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, suppress
from dataclasses import dataclass, field, replace
from datetime import timedelta

from temporalio.client import Client
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from api.access import ALL_SOURCES
from api.dispatch import Context, action
from api.enrollment import NO_CUSTOMER
from api.temporal import outside_system
from models import events
from models.db import Session
from models.enrollment.lines import (
    ActivationType,
    EnrollmentOrder,
    Line,
    LineStatus,
    Pacing,
    orders_of,
    retry_requested,
    vendor_line,
)
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
Target = str | Waiting  # one line's enrollment id, or which waiting lines a bulk retry takes


@dataclass(frozen=True)
class ToResume:
    """Lines to retry, with the orders of those never started rebuilt from their lines. As read: the line named
    (none: not the vendor's), or the first MOST_RETRIED matching lines; as decided, `claimed` names the stuck
    ones to claim; as taken, the lines this retry got and the stuck ones it moved to RETRYING (only these)."""

    lines: list[Line]
    orders: list[EnrollmentOrder] = field(default_factory=list)
    remaining: int = 0  # matching lines left for the next bulk retry
    claimed: list[str] = field(default_factory=list)


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
    matching = waiting(ctx.settings, error_contains=body.error_contains, stuck_minutes=body.stuck_minutes)
    actor, pacing = events.support(ctx.caller.agent_username), Pacing.of(ctx.settings)
    async with ctx.uow.transaction() as session:  # the request model gives an enrollment id, or all_stuck Y
        found = await take(
            session, body.enrollment_id or matching, vendor_id=ctx.caller.vendor_id, pacing=pacing, actor=actor
        )
    # Nothing to resume needs no workflow engine: an empty bulk retry answers even while it is away.
    retried = []
    if found.lines:
        client, rpc_seconds = await ctx.temporal_client(), ctx.settings.temporal.rpc_seconds
        retried = await resume(
            found, client=client, task_queue=ctx.task_queue, rpc_seconds=rpc_seconds, transaction=ctx.uow.transaction
        )
    if body.bulk:
        return RetriedAll(retried=retried, remaining=found.remaining)
    [line] = found.lines
    if not retried:
        raise refuse(no_workflow(line.enrollment_id), rest_status=409)
    return Retried(enrollment_id=line.enrollment_id, status="RETRYING" if found.claimed else "STARTED")


def waiting(settings: Settings, *, error_contains: str | None = None, stuck_minutes: int | None = None) -> Waiting:
    """Which lines wait for support now; a RECEIVED line within the sweep's grace may still be starting."""
    now = utcnow()
    since = now - timedelta(minutes=stuck_minutes) if stuck_minutes else None
    return Waiting(now - timedelta(seconds=settings.sweep.grace_seconds), error_contains, since)


async def take(
    session: Session, target: Target, *, vendor_id: int | None, pacing: Pacing, actor: str | None = None
) -> ToResume:
    """A retry's database side, one read, a pure decision and one write: the lines it resumes, the stuck ones
    claimed (of N retries of a line at once one gets it; a line another retry took meanwhile is left to it) and
    support's retry recorded in each line's timeline as `actor`'s (the operators' CLI records none).
    vendor_id None: any vendor's lines (the CLI)."""
    plan = decide(target, await candidates(session, target, vendor_id=vendor_id, pacing=pacing))
    claimed = await claim_retries(session, plan.claimed)
    if isinstance(target, str) and plan.claimed and not claimed:  # another retry took the line first
        raise refuse(already_retrying(target), rest_status=409)
    taken = [line for line in plan.lines if line.status == LineStatus.RECEIVED or line.enrollment_id in claimed]
    if actor is not None:
        retry_requested(session, taken, actor=actor)
    return replace(plan, lines=taken, claimed=sorted(claimed))


# `lineup ops retry` (cli/main.py) takes one line, or with --all every waiting one, by these names.
one_waiting = all_waiting = take


def decide(target: Target, found: ToResume) -> ToResume:
    """What a retry resumes of the lines read, its stuck ones to claim; or for the one line named the refusal
    saying why not. Pure: no database, no clock."""
    if isinstance(target, Waiting):
        return replace(found, claimed=[line.enrollment_id for line in found.lines if line.status == LineStatus.STUCK])
    if not found.lines:
        raise refuse(NO_CUSTOMER, rest_status=404)
    [line] = found.lines
    if line.status == LineStatus.RETRYING:
        raise refuse(already_retrying(line.enrollment_id), rest_status=409)
    if line.status not in WAITING:
        raise refuse(f"Enrollment {line.enrollment_id} is not stuck (status {line.status})", rest_status=409)
    # A RECEIVED line is started whatever its age: a start finds the run its own request may have begun.
    return replace(found, claimed=[line.enrollment_id] if line.status == LineStatus.STUCK else [])


async def candidates(session: Session, target: Target, *, vendor_id: int | None, pacing: Pacing) -> ToResume:
    """Everything a retry decides on, read at once: the line named, or the first MOST_RETRIED matching lines
    (longest waiting first) and how many more match; with the orders of the never-started ones."""
    if isinstance(target, str):
        line = await vendor_line(session, target, vendor_id=vendor_id)
        lines, remaining = ([line] if line is not None else []), 0
    else:
        lines = await waiting_lines(session, target, vendor_id=vendor_id, limit=MOST_RETRIED)
        full = len(lines) == MOST_RETRIED
        remaining = await count_waiting(session, target, vendor_id=vendor_id) - len(lines) if full else 0
    never_started = list(dict.fromkeys(line.order_id for line in lines if line.status == LineStatus.RECEIVED))
    return ToResume(lines, await orders_of(session, never_started, pacing=pacing), remaining)


async def resume(
    found: ToResume, *, client: Client, task_queue: str, rpc_seconds: float, transaction: Opener
) -> list[str]:
    """Signals each claimed stuck line's workflow to try again and starts each never-started order (or finds
    it running); answers the enrollment ids now on their way. A stuck line whose workflow is gone, or whose
    workflow the engine refuses for one of its limits, is left out (one line: refused, saying which); a retry
    that did not reach its workflow leaves its line STUCK again."""
    slots = asyncio.Semaphore(AT_ONCE)
    refused: dict[str, str] = {}

    async def signal(line: Line) -> None:
        async with slots:
            try:
                await retry_line(client, line)
            except RPCError as error:
                if error.status not in LEFT_OUT:
                    raise
                refused[line.enrollment_id] = (
                    no_workflow(line.enrollment_id)
                    if error.status == RPCStatusCode.NOT_FOUND
                    else f"The workflow engine refused the retry of enrollment {line.enrollment_id}: {error.message}"
                )
                fields = {"enrollment_id": line.enrollment_id}
                log.warning("stuck line not retried: %s", refused[line.enrollment_id], extra={"fields": fields})

    async def start(order: EnrollmentOrder) -> None:
        async with slots:
            with suppress(WorkflowAlreadyStartedError):  # running already (or ended): nothing to start
                await client.start_workflow(
                    EnrollmentWorkflow.run, order, task_queue=task_queue, **start_options(order)
                )

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
    if refused:
        async with transaction() as session:
            await release_retries(session, sorted(refused))
        if len(found.lines) == 1:
            raise refuse(*refused.values(), rest_status=409)
    signalled = set(found.claimed) - refused.keys()
    started = {line_id for order in found.orders for line_id in order.enrollment_ids}
    return [line.enrollment_id for line in found.lines if line.enrollment_id in signalled | started]


async def retry_line(client: Client, line: Line) -> None:
    """A PORTIN line is stuck submitting its port (PortInWorkflow's step); any other on its activation."""
    if line.activation_type == ActivationType.PORTIN:
        await client.get_workflow_handle(port_workflow_id(line.enrollment_id)).signal(PortInWorkflow.retry)
    else:
        await client.get_workflow_handle(line_workflow_id(line.enrollment_id)).signal(LineWorkflow.retry)


def already_retrying(enrollment_id: str) -> str:
    return f"Enrollment {enrollment_id} is already being retried"


def no_workflow(enrollment_id: str) -> str:
    return f"Enrollment {enrollment_id} has no workflow to retry"
