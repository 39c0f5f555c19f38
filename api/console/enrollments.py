"""The console's enrollment page (an account's lines, each with its timeline from the event log), the fixes of a
stuck line (a new SIM, corrected port data; then Retry) and of a port needing resolution (corrected and
resubmitted), the bulk retry by error text and age, and the vendor's webhook endpoints with their recent
deliveries. HTTP only, as routes.py: session, CSRF, forms, redirects; the work is the services'. Every POST is
audited as `/ops` calls are."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError

from api.console import session as cookies
from api.console.pages import html, problem, redirect
from api.console.routes import (
    CurrentAgent,
    SignedIn,
    audit,
    context_of,
    first_problem,
    listing,
    posting_agent,
    refusal,
    text_fields,
    to_sign_in,
)
from dispatch.context import Context
from models.envelope import MsgCode
from models.errors import LineupError
from models.requests.support import LineAction, PortFix, RetryEnrollment, RetryMany, SimReplacement, WebhookForm
from persistence.errors import RecordNotFound
from services import webhooks
from services.support import console, enrollment_page
from services.support import retries as ops

router = APIRouter(prefix="/console", include_in_schema=False)

DONE = {
    "corrected": "Correction saved. Retry the line to send it to the carrier.",
    "resubmitted": "Correction sent: the port-in was resubmitted to the carrier.",
    "retried": "Retry sent: the line's workflow is trying its step again. Reload to follow it.",
    "started": "The line's order had never started; its workflow has been started.",
    "disabled": "Endpoint disabled.",
    "again": "Delivery queued again (same event id).",
}
Work = Callable[[Context], Awaitable[str]]


def _page(request: Request, signed: SignedIn, template: str, *, status: int = 200, **values: object) -> Response:
    assert signed.who is not None and signed.token is not None
    return html(request, template, status=status, who=signed.who, csrf=cookies.session_csrf(signed.token), **values)


@router.get("/enrollments/{enrollment_id}")
async def enrollment(request: Request, signed: CurrentAgent, enrollment_id: str, done: str = "") -> Response:
    if signed.who is None:
        return to_sign_in(request, signed)
    return await _enrollment(request, signed, enrollment_id, notice=DONE.get(done))


async def _enrollment(
    request: Request, signed: SignedIn, enrollment_id: str, *, status: int = 200, **values: object
) -> Response:
    assert signed.who is not None
    try:
        line = LineAction.model_validate({"enrollment_id": enrollment_id})
        ctx = context_of(request, signed.who, "console_enrollment")
        view = await enrollment_page.enrollment(enrollment_id=line.enrollment_id, ctx=ctx)
    except (ValidationError, LineupError):
        return problem(request, 404, "Not found", "No enrollment of yours has that id.")
    title = f"Enrollment {view.parent_enrollment_id}"
    return _page(request, signed, "enrollment.html", status=status, view=view, title=title, kind="enrollment", **values)


async def _line_post(request: Request, signed: SignedIn, enrollment_id: str, action: str, work: Work) -> Response:
    """A form of a line on the enrollment page: checks, runs, audits, and shows the page again."""
    who = await posting_agent(request, signed)
    if isinstance(who, Response):
        return who
    ctx = context_of(request, who, action)
    try:
        done = await work(ctx)
    except ValidationError as invalid:
        audit(request, who, action, MsgCode.ERROR)
        return await _enrollment(request, signed, enrollment_id, status=400, error=first_problem(invalid))
    except LineupError as refused:
        audit(request, who, action, refused.code)
        status = refused.rest_status or 400
        return await _enrollment(request, signed, enrollment_id, status=status, error=refusal(refused))
    audit(request, who, action, MsgCode.SUCCESS)
    return redirect(request, f"/enrollments/{enrollment_id}", done=done)


@router.post("/lines/{enrollment_id}/sim")
async def replace_sim(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    async def work(ctx: Context) -> str:
        form = SimReplacement.model_validate(await text_fields(request))
        return await enrollment_page.replace_sim(enrollment_id=enrollment_id, form=form, ctx=ctx)

    return await _line_post(request, signed, enrollment_id, "console_replace_sim", work)


@router.post("/lines/{enrollment_id}/port")
async def correct_port(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    async def work(ctx: Context) -> str:
        form = PortFix.model_validate(await text_fields(request))
        return await enrollment_page.correct_port(enrollment_id=enrollment_id, form=form, ctx=ctx)

    return await _line_post(request, signed, enrollment_id, "console_correct_port", work)


@router.post("/enrollments/lines/{enrollment_id}/retry")
async def retry(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    async def work(ctx: Context) -> str:
        return await console.retry(enrollment_id=enrollment_id, ctx=ctx)

    return await _line_post(request, signed, enrollment_id, "retry_enrollment", work)


@router.post("/retry-many")
async def retry_many(request: Request, signed: CurrentAgent) -> Response:
    """The stuck page's bulk retry: every matching stuck line of the vendor, as `retry_enrollment` all_stuck Y."""
    who = await posting_agent(request, signed)
    if isinstance(who, Response):
        return who
    ctx = context_of(request, who, "retry_enrollment")
    try:
        form = RetryMany.model_validate(await text_fields(request))
        body = RetryEnrollment.model_validate(
            {"action": "retry_enrollment", "all_stuck": "Y", **form.model_dump(exclude_none=True)}
        )
        answer = await ops.retry_enrollment(body=body, ctx=ctx)
    except ValidationError as invalid:
        return listing(
            request, signed, "stuck", await console.stuck_lines(ctx=ctx), status=400, error=first_problem(invalid)
        )
    except LineupError as refused:
        audit(request, who, "retry_enrollment", refused.code)
        rows = await console.stuck_lines(ctx=ctx)
        return listing(request, signed, "stuck", rows, status=refused.rest_status or 400, error=refusal(refused))
    audit(request, who, "retry_enrollment", MsgCode.SUCCESS)
    notice = f"Retry sent to {len(getattr(answer, 'retried', []))} lines."
    return listing(request, signed, "stuck", await console.stuck_lines(ctx=ctx), notice=notice)


@router.get("/webhooks")
async def webhook_page(request: Request, signed: CurrentAgent, done: str = "") -> Response:
    if signed.who is None:
        return to_sign_in(request, signed)
    return await _webhooks(request, signed, notice=DONE.get(done))


async def _webhooks(request: Request, signed: SignedIn, *, status: int = 200, **values: object) -> Response:
    assert signed.who is not None
    ctx = context_of(request, signed.who, "console_webhooks")
    async with ctx.uow.transaction() as session:
        endpoints = await webhooks.console_endpoints(session, ctx.caller.vendor_id)
    return _page(
        request,
        signed,
        "webhooks.html",
        status=status,
        kind="webhooks",
        title="Webhooks",
        endpoints=endpoints,
        **values,
    )


async def _webhook_post(request: Request, signed: SignedIn, action: str, work: Work) -> Response:
    who = await posting_agent(request, signed)
    if isinstance(who, Response):
        return who
    ctx = context_of(request, who, action)
    try:
        done = await work(ctx)
    except ValidationError as invalid:
        return await _webhooks(request, signed, status=400, error=first_problem(invalid))
    except (LineupError, RecordNotFound) as refused:
        words = refusal(refused) if isinstance(refused, LineupError) else "No such endpoint"
        audit(request, who, action, refused.code if isinstance(refused, LineupError) else MsgCode.ERROR)
        return await _webhooks(request, signed, status=400, error=words)
    audit(request, who, action, MsgCode.SUCCESS)
    return redirect(request, "/webhooks", done=done)


@router.post("/webhooks")
async def add_webhook(request: Request, signed: CurrentAgent) -> Response:
    """A new endpoint: the page itself shows the secret (once), no redirect that would lose it."""
    who = await posting_agent(request, signed)
    if isinstance(who, Response):
        return who
    ctx = context_of(request, who, "console_webhook_add")
    try:
        form = WebhookForm.model_validate(await text_fields(request))
        async with ctx.uow.transaction() as session:
            registered = await webhooks.add_endpoint(
                session,
                ctx.cipher,
                ctx.settings,
                vendor_id=ctx.caller.vendor_id,
                url=form.url,
                events=form.events or None,
            )
    except ValidationError as invalid:
        return await _webhooks(request, signed, status=400, error=first_problem(invalid))
    except LineupError as refused:
        audit(request, who, "console_webhook_add", refused.code)
        return await _webhooks(request, signed, status=400, error=refusal(refused))
    audit(request, who, "console_webhook_add", MsgCode.SUCCESS)
    return await _webhooks(request, signed, registered=registered)


@router.post("/webhooks/{endpoint_id}/disable")
async def disable_webhook(request: Request, signed: CurrentAgent, endpoint_id: str) -> Response:
    async def work(ctx: Context) -> str:
        async with ctx.uow.transaction() as session:
            by = f"support ({ctx.caller.agent_username})"
            await webhooks.disable_endpoint(session, endpoint_id[:40], vendor_id=ctx.caller.vendor_id, by=by)
        return "disabled"

    return await _webhook_post(request, signed, "console_webhook_disable", work)


@router.post("/deliveries/{delivery_id}/send-again")
async def send_again(request: Request, signed: CurrentAgent, delivery_id: int) -> Response:
    async def work(ctx: Context) -> str:
        async with ctx.uow.transaction() as session:
            await webhooks.send_again(session, delivery_id, vendor_id=ctx.caller.vendor_id)
        return "again"

    return await _webhook_post(request, signed, "console_webhook_send_again", work)
