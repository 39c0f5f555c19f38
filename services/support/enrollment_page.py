"""The console's enrollment page and its fixes: every line of an account (the lines sharing a parent enrollment
id) with its status, MDN, port status, last error and its timeline from the event log; for a stuck line a new SIM
or corrected port fields (then Retry, the `/ops` retry), for a port needing resolution a correction that is
resubmitted (update_portin's path). Each correction is audited and recorded in the timeline by field name."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import col, select

from dispatch.context import Context
from models import events as actors
from models.documents import Fields
from models.errors import refuse
from models.events import EventType
from models.refusals import NO_PORT_ORDER
from models.requests.support import PortFix, SimReplacement
from models.statuses import LineStatus, PortStatus
from models.tables.enrollment import Line
from models.tables.events import LineEvent
from models.tables.porting import PortIn
from persistence import events
from persistence.support import shown_error
from services.enrollment.lines import NO_CUSTOMER
from services.porting import status as porting

SHOWN_FACTS = ("mdn", "code", "text", "error", "field", "fields", "status", "resolution", "invoice_number", "calc_id")
LABELS = {kind.value: kind.value.split(".", 1)[1].replace("_", " ") for kind in EventType}


@dataclass(frozen=True)
class Moment:
    """One event as the timeline shows it."""

    created: datetime
    type: str
    label: str
    actor: str
    facts: str


@dataclass(frozen=True)
class LineView:
    enrollment_id: str
    status: str
    mdn: str | None
    last_error: str
    port_status: str | None
    port_number: str | None
    is_esim: bool
    timeline: list[Moment]

    @property
    def fixable(self) -> bool:
        """A stuck line (the carrier refused it, or kept failing) may get a new SIM or port data, then Retry."""
        return self.status == LineStatus.STUCK

    @property
    def resolvable(self) -> bool:
        return self.port_status == PortStatus.RESOLUTION_REQUIRED


@dataclass(frozen=True)
class EnrollmentView:
    parent_enrollment_id: str
    lines: list[LineView]


def moment(event: LineEvent) -> Moment:
    data = json.loads(event.data)
    facts = ", ".join(f"{name} {data[name]}" for name in SHOWN_FACTS if data.get(name) not in (None, ""))
    return Moment(event.created, event.type, LABELS.get(event.type, event.type), event.actor, facts)


async def enrollment(*, enrollment_id: str, ctx: Context) -> EnrollmentView:
    """The account of this line (or parent enrollment id), every line with its timeline; the vendor's only."""
    async with ctx.uow.transaction() as session:
        named = await session.get(Line, enrollment_id)
        parent = named.parent_enrollment_id if named and named.vendor_id == ctx.caller.vendor_id else enrollment_id
        query = (
            select(Line)
            .where(Line.vendor_id == ctx.caller.vendor_id, Line.parent_enrollment_id == parent)
            .order_by(col(Line.created_at), col(Line.enrollment_id))
        )
        lines = list((await session.exec(query)).all())
        if not lines:
            raise refuse(NO_CUSTOMER, rest_status=404)
        views = []
        for line in lines:
            port = await session.get(PortIn, line.enrollment_id)
            timeline = [moment(event) for event in await events.timeline(session, line.enrollment_id)]
            port_status, port_number = (port.status, port.port_number) if port else (None, None)
            error = shown_error(line)
            views.append(
                LineView(
                    line.enrollment_id, line.status, line.mdn, error, port_status, port_number, line.is_esim, timeline
                )
            )
    return EnrollmentView(parent, views)


async def replace_sim(*, enrollment_id: str, form: SimReplacement, ctx: Context) -> str:
    """A stuck line's new SIM (its next attempt uses it, under a new carrier key after a refusal)."""
    async with ctx.uow.transaction() as session:
        line = await session.get(Line, enrollment_id)
        if line is None or line.vendor_id != ctx.caller.vendor_id:
            raise refuse(NO_CUSTOMER, rest_status=404)
        if line.status != LineStatus.STUCK or line.is_esim:
            raise refuse(
                f"Only a stuck line with a physical SIM can get a new one (status {line.status})", rest_status=409
            )
        given = form.given()
        line.esn, line.iccid = given.get("esn", line.esn), given.get("uiccid", line.iccid)
        session.add(line)
        await events.corrected(session, enrollment_id, sorted(given), actor=actors.support(ctx.caller.agent_username))
    return "corrected"


async def correct_port(*, enrollment_id: str, form: PortFix, ctx: Context) -> str:
    """Corrected port data: resubmitted at once for a port needing resolution (update_portin); kept for the next
    attempt of a stuck line's port submission (then Retry)."""
    async with ctx.uow.transaction() as session:
        line = await session.get(Line, enrollment_id)
        port = await session.get(PortIn, enrollment_id)
        if line is None or port is None or line.vendor_id != ctx.caller.vendor_id:
            raise refuse(NO_PORT_ORDER, rest_status=404)
        corrections = form.corrections()
        if port.status != PortStatus.RESOLUTION_REQUIRED:
            if line.status != LineStatus.STUCK:
                raise refuse(
                    f"The port-in is {port.status} and the line {line.status}: nothing to correct", rest_status=409
                )
            port.secrets = ctx.cipher.seal({**ctx.cipher.open(port.secrets, Fields), **corrections})
            session.add(port)
            await events.corrected(
                session, enrollment_id, sorted(corrections), actor=actors.support(ctx.caller.agent_username)
            )
            return "corrected"
    await porting.correct_port(ctx, enrollment_id, corrections)
    return "resubmitted"
