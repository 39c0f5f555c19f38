"""The console's enrollment page and its fixes: every line of an account (the lines sharing a parent enrollment
id) with its status, MDN, port status, last error and its timeline from the event log; for a stuck line a new SIM
or corrected port fields (then Retry, the `/ops` retry), for a port needing resolution a correction that is
resubmitted (update_portin's path). Each correction is audited and recorded in the timeline by field name.
Also the webhooks page: the vendor's endpoints and their recent deliveries."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError
from sqlmodel import col, select

from api import porting, webhooks
from api.console import routes
from api.console.routes import CurrentAgent, Failed, SignedIn
from api.dispatch import Context
from api.enrollment import NO_CUSTOMER
from models import events
from models.crypto import Fields
from models.db import RecordNotFound
from models.enrollment.lines import Line, LineStatus, corrected, vendor_line
from models.envelope import NO_PORT_ORDER, LineupError, refuse
from models.events import EventType
from models.porting import PortIn, PortStatus
from models.support import (
    LineAction,
    PortFix,
    SimReplacement,
    WebhookForm,
    port_orders,
    shown_error,
    timelines,
)
from models.types import malformed

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


router = APIRouter(prefix="/console", include_in_schema=False)


@router.get("/enrollments/{enrollment_id}")
async def enrollment(request: Request, signed: CurrentAgent, enrollment_id: str, done: str = "") -> Response:
    if signed.who is None:
        return routes.to_sign_in(request, signed)
    return await _enrollment(request, signed, enrollment_id, notice=routes.DONE.get(done))


@router.post("/lines/{enrollment_id}/sim")
async def replace_sim(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    """A stuck line's new SIM (its next attempt uses it, under a new carrier key after a refusal)."""

    async def work(ctx: Context) -> str:
        given = SimReplacement.model_validate(await routes.text_fields(request)).given()
        async with ctx.uow.transaction() as session:
            line = await vendor_line(session, enrollment_id, vendor_id=ctx.caller.vendor_id)
            if line is None:
                raise refuse(NO_CUSTOMER, rest_status=404)
            if line.status != LineStatus.STUCK or line.is_esim:
                message = f"Only a stuck line with a physical SIM can get a new one (status {line.status})"
                raise refuse(message, rest_status=409)
            line.esn, line.iccid = given.get("esn", line.esn), given.get("uiccid", line.iccid)
            await corrected(session, enrollment_id, sorted(given), actor=events.support(ctx.caller.agent_username))
        return "corrected"

    return await _line_post(request, signed, enrollment_id, "console_replace_sim", work)


@router.post("/lines/{enrollment_id}/port")
async def correct_port(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    """Corrected port data: resubmitted at once for a port needing resolution (update_portin); kept for the next
    attempt of a stuck line's port submission (then Retry)."""

    async def work(ctx: Context) -> str:
        corrections = PortFix.model_validate(await routes.text_fields(request)).corrections()
        async with ctx.uow.transaction() as session:
            line = await vendor_line(session, enrollment_id, vendor_id=ctx.caller.vendor_id)
            port = await session.get(PortIn, enrollment_id)
            if line is None or port is None:
                raise refuse(NO_PORT_ORDER, rest_status=404)
            if port.status != PortStatus.RESOLUTION_REQUIRED:
                if line.status != LineStatus.STUCK:
                    message = f"The port-in is {port.status} and the line {line.status}: nothing to correct"
                    raise refuse(message, rest_status=409)
                port.secrets = ctx.cipher.seal({**ctx.cipher.open(port.secrets, Fields), **corrections})
                actor = events.support(ctx.caller.agent_username)
                await corrected(session, enrollment_id, sorted(corrections), actor=actor)
                return "corrected"
        await porting.correct_port(ctx, enrollment_id, corrections)
        return "resubmitted"

    return await _line_post(request, signed, enrollment_id, "console_correct_port", work)


@router.post("/enrollments/lines/{enrollment_id}/retry")
async def retry(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    async def work(ctx: Context) -> str:
        return await routes.retry_from_console(enrollment_id=enrollment_id, ctx=ctx)

    return await _line_post(request, signed, enrollment_id, "retry_enrollment", work)


@router.get("/webhooks")
async def webhook_page(request: Request, signed: CurrentAgent, done: str = "") -> Response:
    if signed.who is None:
        return routes.to_sign_in(request, signed)
    return await _webhooks(request, signed, notice=routes.DONE.get(done))


@router.post("/webhooks")
async def add_webhook(request: Request, signed: CurrentAgent) -> Response:
    """A new endpoint: the page itself shows the secret (once), no redirect that would lose it."""
    who = await routes.posting_agent(request, signed)
    if isinstance(who, Response):
        return who

    async def work(ctx: Context) -> webhooks.Registered:
        form = WebhookForm.model_validate(await routes.text_fields(request))
        async with ctx.uow.transaction() as session:
            return await webhooks.add_endpoint(
                session,
                ctx.cipher,
                ctx.settings,
                vendor_id=ctx.caller.vendor_id,
                url=form.url,
                events=form.events or None,
            )

    registered = await routes.attempt(request, who, "console_webhook_add", work)
    if isinstance(registered, Failed):
        return await _webhooks(request, signed, status=400, error=registered.error)
    return await _webhooks(request, signed, registered=registered)


@router.post("/webhooks/{endpoint_id}/disable")
async def disable_webhook(request: Request, signed: CurrentAgent, endpoint_id: str) -> Response:
    async def work(ctx: Context) -> str:
        by = f"support ({ctx.caller.agent_username})"
        if malformed(endpoint_id):  # a `%00` (a NUL): an id no endpoint has, which no lookup could take
            raise refuse("No such endpoint")
        async with ctx.uow.transaction() as session:
            try:
                await webhooks.disable_endpoint(session, endpoint_id[:40], vendor_id=ctx.caller.vendor_id, by=by)
            except RecordNotFound:
                raise refuse("No such endpoint") from None
        return "disabled"

    return await _webhook_post(request, signed, "console_webhook_disable", work)


@router.post("/deliveries/{delivery_id}/send-again")
async def send_again(request: Request, signed: CurrentAgent, delivery_id: int) -> Response:
    async def work(ctx: Context) -> str:
        async with ctx.uow.transaction() as session:
            await webhooks.send_again(session, delivery_id, vendor_id=ctx.caller.vendor_id)
        return "again"

    return await _webhook_post(request, signed, "console_webhook_send_again", work)


async def enrollment_view(*, enrollment_id: str, ctx: Context) -> EnrollmentView:
    """The account of this line (or parent enrollment id), every line with its timeline; the vendor's only."""
    async with ctx.uow.transaction() as session:
        named = await vendor_line(session, enrollment_id, vendor_id=ctx.caller.vendor_id)
        parent = named.parent_enrollment_id if named else enrollment_id
        query = (
            select(Line)
            .where(Line.vendor_id == ctx.caller.vendor_id, Line.parent_enrollment_id == parent)
            .order_by(col(Line.created_at), col(Line.enrollment_id))
        )
        lines = list((await session.exec(query)).all())
        if not lines:
            raise refuse(NO_CUSTOMER, rest_status=404)
        enrollment_ids = [line.enrollment_id for line in lines]
        ports, events_of = await port_orders(session, enrollment_ids), await timelines(session, enrollment_ids)
        views = []
        for line in lines:
            port = ports.get(line.enrollment_id)
            moments = []
            for event in events_of[line.enrollment_id]:
                data = json.loads(event.data)
                facts = ", ".join(f"{name} {data[name]}" for name in SHOWN_FACTS if data.get(name) not in (None, ""))
                moments.append(
                    Moment(event.created, event.type, LABELS.get(event.type, event.type), event.actor, facts)
                )
            status, number = (port.status, port.port_number) if port else (None, None)
            error = shown_error(line)
            views.append(
                LineView(line.enrollment_id, line.status, line.mdn, error, status, number, line.is_esim, moments)
            )
    return EnrollmentView(parent, views)


async def _enrollment(
    request: Request, signed: SignedIn, enrollment_id: str, *, status: int = 200, **values: object
) -> Response:
    assert signed.who is not None
    try:
        line = LineAction.model_validate({"enrollment_id": enrollment_id})
        ctx = routes.context_of(request, signed.who, "console_enrollment")
        view = await enrollment_view(enrollment_id=line.enrollment_id, ctx=ctx)
    except (ValidationError, LineupError):
        return routes.problem(request, 404, "Not found", "No enrollment of yours has that id.")
    title = f"Enrollment {view.parent_enrollment_id}"
    return routes.page(request, signed, "enrollment.html", "enrollment", title, status=status, view=view, **values)


async def _line_post(
    request: Request, signed: SignedIn, enrollment_id: str, action: str, work: routes.Work[str]
) -> Response:
    """A form of a line on the enrollment page: runs it, and shows the page again (with what went wrong)."""
    who = await routes.posting_agent(request, signed)
    if isinstance(who, Response):
        return who

    async def checked(ctx: Context) -> str:
        # The path's id checked before any lookup: a `%00` in it (a NUL, which PostgreSQL's text cannot hold)
        # names no line, as any id no enrollment could have.
        LineAction.model_validate({"enrollment_id": enrollment_id})
        return await work(ctx)

    done = await routes.attempt(request, who, action, checked, audit_invalid=True)
    if isinstance(done, Failed):
        return await _enrollment(request, signed, enrollment_id, status=done.status, error=done.error)
    return routes.redirect(request, f"/enrollments/{enrollment_id}", done=done)


async def _webhooks(request: Request, signed: SignedIn, *, status: int = 200, **values: object) -> Response:
    assert signed.who is not None
    ctx = routes.context_of(request, signed.who, "console_webhooks")
    async with ctx.uow.transaction() as session:
        endpoints = await webhooks.console_endpoints(session, ctx.caller.vendor_id)
    return routes.page(
        request, signed, "webhooks.html", "webhooks", "Webhooks", status=status, endpoints=endpoints, **values
    )


async def _webhook_post(request: Request, signed: SignedIn, action: str, work: routes.Work[str]) -> Response:
    """A button of the webhooks page: a refusal shows the page again (400, whatever the refusal's own status)."""
    who = await routes.posting_agent(request, signed)
    if isinstance(who, Response):
        return who
    done = await routes.attempt(request, who, action, work)
    if isinstance(done, Failed):
        return await _webhooks(request, signed, status=400, error=done.error)
    return routes.redirect(request, "/webhooks", done=done)
