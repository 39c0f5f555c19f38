"""The support console's pages and actions, over the same operations `/ops` and `/customer` use: the stuck lines
(with their last error and how long they have waited), the lines waiting for a later activation, the port-ins
waiting for a correction, and the search. Every query and action is the signed-in agent's vendor's only."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import quote

from dispatch.context import Caller, Context
from models.answers.support import Retried
from models.clock import utcnow
from models.requests.enrollment import ActivateLine
from models.requests.support import RetryEnrollment
from models.settings import Settings
from models.statuses import LineStatus, PortStatus
from models.tables.enrollment import Line
from models.tables.porting import PortIn
from persistence.support import find_lines, lines_in_status, ports_in_status, shown_error, waiting_lines
from services.enrollment import lines
from services.support import retries as ops
from services.support.sign_in import ConsoleAgent
from workflows.ids import line_workflow_id, port_workflow_id

MOST_SHOWN = 200  # rows a page lists, longest waiting first
# The console acts as an agent, not as an API user; the operations it calls never read the API user's id.
NO_API_USER = 0


def console_caller(who: ConsoleAgent, action: str) -> Caller:
    agent = who.agent
    return Caller(agent.vendor_id, who.vendor_code, NO_API_USER, None, agent, action)


@dataclass(frozen=True)
class Row:
    """One line as a console page shows it."""

    enrollment_id: str
    parent_enrollment_id: str
    status: str
    detail: str  # the last error, or what the port-in needs
    since: datetime
    workflow_url: str
    mdn: str | None = None
    customer_id: str | None = None
    port_number: str | None = None

    @property
    def waited(self) -> str:
        """How long it has been in its state, as a person reads it: 45 s, 12 min, 3 h, 2 d."""
        seconds = max(0, int((utcnow() - self.since).total_seconds()))
        for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
            if seconds >= size:
                return f"{seconds // size} {unit}"
        return f"{seconds} s"

    @property
    def retryable(self) -> bool:
        return self.status in ops.WAITING

    @property
    def activatable(self) -> bool:
        return self.status == LineStatus.WAITING_ACTIVATION


def workflow_url(settings: Settings, workflow_id: str) -> str:
    """The workflow's page in the Temporal UI (LINEUP_TEMPORAL_UI_URL)."""
    namespace = quote(settings.temporal.namespace, safe="")
    return f"{settings.temporal.ui}/namespaces/{namespace}/workflows/{quote(workflow_id, safe='')}"


def _row(settings: Settings, line: Line) -> Row:
    return Row(
        enrollment_id=line.enrollment_id,
        parent_enrollment_id=line.parent_enrollment_id,
        status=line.status,
        detail=shown_error(line),
        since=line.status_since,
        workflow_url=workflow_url(settings, line_workflow_id(line.enrollment_id)),
        mdn=line.mdn,
        customer_id=line.customer_id,
    )


def _port_row(settings: Settings, line: Line, port: PortIn) -> Row:
    need = " ".join(part for part in (port.resolution_code, port.resolution_description) if part)
    return replace(
        _row(settings, line),
        status=port.status,
        detail=need,
        since=port.responded_at or line.status_since,
        workflow_url=workflow_url(settings, port_workflow_id(line.enrollment_id)),
        port_number=port.port_number,
    )


async def stuck_lines(*, ctx: Context) -> list[Row]:
    """The lines waiting for support, as `list_stuck_enrollments` answers them."""
    async with ctx.uow.transaction() as session:
        lines = await waiting_lines(
            session, ops.waiting(ctx.settings), vendor_id=ctx.caller.vendor_id, limit=MOST_SHOWN
        )
    return [_row(ctx.settings, line) for line in lines]


async def lines_waiting_activation(*, ctx: Context) -> list[Row]:
    async with ctx.uow.transaction() as session:
        lines = await lines_in_status(
            session, LineStatus.WAITING_ACTIVATION, vendor_id=ctx.caller.vendor_id, limit=MOST_SHOWN
        )
    return [_row(ctx.settings, line) for line in lines]


async def ports_awaiting_resolution(*, ctx: Context) -> list[Row]:
    """Port-ins the old carrier sent back for a correction (update_portin fixes them)."""
    async with ctx.uow.transaction() as session:
        found = await ports_in_status(
            session, PortStatus.RESOLUTION_REQUIRED, vendor_id=ctx.caller.vendor_id, limit=MOST_SHOWN
        )
    return [_port_row(ctx.settings, line, port) for line, port in found]


async def search(*, wanted: str, ctx: Context) -> list[Row]:
    """The lines found; a line porting a number in (at creation or after) says which and how far it got."""
    async with ctx.uow.transaction() as session:
        found = await find_lines(session, wanted, vendor_id=ctx.caller.vendor_id, limit=MOST_SHOWN)
    rows = []
    for line, port in found:
        row = _row(ctx.settings, line)
        if port is not None and not row.detail:
            row = replace(row, detail=f"Port-in of {port.port_number}: {port.status}", port_number=port.port_number)
        rows.append(row)
    return rows


async def retry(*, enrollment_id: str, ctx: Context) -> str:
    """`retry_enrollment` for one line: `retried` (its workflow tries the step again) or `started` (its order
    had never started)."""
    body = RetryEnrollment.model_validate({"action": "retry_enrollment", "enrollment_id": enrollment_id})
    answer = await ops.retry_enrollment(body=body, ctx=ctx)
    return "started" if isinstance(answer, Retried) and answer.status == "STARTED" else "retried"


async def activate(*, enrollment_id: str, ctx: Context) -> str:
    """`activate_line` for one line, with the SIM attached to it: `activated`, or `activating` while the
    carrier has not answered within LINEUP_SYNC_WAIT_SECONDS."""
    body = ActivateLine.model_validate({"action": "activate_line", "enrollment_id": enrollment_id})
    [entry] = await lines.activate_line(body=body, ctx=ctx)
    return "activated" if entry.data.mdn else "activating"
