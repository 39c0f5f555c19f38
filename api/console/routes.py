"""The support console at `/console`: server-rendered pages for agents with the `support` role, over the same
operations `/ops` and `/customer` run. HTTP only: the session and CSRF checks, the forms, the redirects; the
queries and actions are services.console's. Not in the OpenAPI document: these are pages, not the API."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Annotated, Protocol

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.datastructures import FormData

from api.console import session as cookies
from api.console.pages import html, problem, redirect, stylesheet
from api.facts import facts_of
from dispatch.context import Context
from models.envelope import MsgCode
from models.errors import LineupError
from models.requests.support import LineAction, Search, SignIn
from services.support import console
from services.support.sign_in import ConsoleAgent, sign_in, sign_out, signed_in

router = APIRouter(prefix="/console", include_in_schema=False)

FORGED = "This form did not come from your console session, or the session has changed. Reload the page and try again."
# What a line's page says after its button worked (the redirect names the outcome, never free text).
DONE = {
    "retried": "Retry sent: the line's workflow is trying its step again. Reload to follow it.",
    "started": "The line's order had never started; its workflow has been started.",
    "activated": "Line activated.",
    "activating": "Activation sent; the carrier has not answered yet. Reload to follow it.",
}


class Listing(Protocol):
    def __call__(self, *, ctx: Context) -> Awaitable[list[console.Row]]: ...


class RowAction(Protocol):
    def __call__(self, *, enrollment_id: str, ctx: Context) -> Awaitable[str]: ...


PAGES: dict[str, tuple[str, Listing]] = {
    "stuck": ("Stuck lines", console.stuck_lines),
    "waiting": ("Waiting for activation", console.lines_waiting_activation),
    "ports": ("Port-ins awaiting resolution", console.ports_awaiting_resolution),
}


@dataclass(frozen=True)
class SignedIn:
    """The request's agent and session token; `who` is None without a live session (`ended`: there was one)."""

    who: ConsoleAgent | None
    token: str | None

    @property
    def ended(self) -> bool:
        return self.who is None and bool(self.token)


async def current(request: Request) -> SignedIn:
    token = request.cookies.get(cookies.SESSION_COOKIE)
    who = await signed_in(token=token, uow=facts_of(request).uow, settings=cookies.settings_of(request))
    return SignedIn(who, token)


CurrentAgent = Annotated[SignedIn, Depends(current)]


def to_sign_in(request: Request, signed: SignedIn) -> Response:
    response = redirect(request, "/login", **({"ended": "1"} if signed.ended else {}))
    if signed.ended:
        cookies.drop_cookie(request, response, cookies.SESSION_COOKIE)
    return response


def context_of(request: Request, who: ConsoleAgent, action: str) -> Context:
    """The Context the console's actions run in: the signed-in agent, acting outside any API token chain."""
    facts = facts_of(request)
    return Context(console.console_caller(who, action), facts.uow, request.app.state.resources, facts.request_id)


def audit(request: Request, who: ConsoleAgent | None, action: str, code: MsgCode) -> None:
    """What the edge writes to the audit log (and counts) for this POST, as it does for `/ops`."""
    facts = facts_of(request)
    facts.action, facts.msg_code = action, code.value
    if who is not None:
        facts.vendor_id, facts.agent = who.agent.vendor_id, who.agent.username


async def text_fields(request: Request) -> dict[str, str]:
    form: FormData = await request.form()
    return {name: value for name, value in form.items() if isinstance(value, str)}


async def forged(request: Request, session_token: str) -> bool:
    """True unless the form carries the session's CSRF token."""
    offered = (await text_fields(request)).get(cookies.CSRF_FIELD)
    return not cookies.csrf_matches(cookies.session_csrf(session_token), offered)


def forbidden(request: Request) -> Response:
    return problem(request, 403, "Forbidden", FORGED)


async def posting_agent(request: Request, signed: SignedIn) -> ConsoleAgent | Response:
    """Who a console POST acts as, or what it answers instead: the sign-in page without a session, 403 without
    the session's CSRF token in the form."""
    if signed.who is None or signed.token is None:
        return to_sign_in(request, signed)
    if await forged(request, signed.token):
        return forbidden(request)
    return signed.who


def first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    return f"{field}: {first['msg']}" if field else str(first["msg"])


def refusal(error: LineupError) -> str:
    return error.errors[0] if error.errors else error.msg


def listing(
    request: Request, signed: SignedIn, kind: str, rows: list[console.Row], *, status: int = 200, **extra: object
) -> Response:
    assert signed.who is not None and signed.token is not None
    title = PAGES[kind][0] if kind in PAGES else "Search"
    return html(
        request,
        "lines.html",
        status=status,
        who=signed.who,
        csrf=cookies.session_csrf(signed.token),
        kind=kind,
        title=title,
        rows=rows,
        **extra,
    )


@router.get("/console.css")
async def console_css() -> Response:
    return stylesheet()


@router.get("/login")
async def login_page(request: Request, signed: CurrentAgent, ended: str = "") -> Response:
    if signed.who is not None:
        return redirect(request)
    message = "Your session has ended. Sign in again." if ended or signed.ended else None
    return login_form(request, notice=message)


def login_form(request: Request, *, status: int = 200, error: str | None = None, notice: str | None = None) -> Response:
    token = cookies.login_csrf(request)
    response = html(request, "login.html", status=status, csrf=token, error=error, notice=notice)
    cookies.keep_cookie(request, response, cookies.LOGIN_COOKIE, token)
    return response


@router.post("/login")
async def login(request: Request) -> Response:
    fields = await text_fields(request)
    if not cookies.csrf_matches(request.cookies.get(cookies.LOGIN_COOKIE), fields.get(cookies.CSRF_FIELD)):
        return forbidden(request)
    try:
        form = SignIn.model_validate(fields)
    except ValidationError as invalid:
        return login_form(request, status=400, error=first_problem(invalid))
    ip = request.client.host if request.client else None
    try:
        gates = request.app.state.resources.gates
        settings = cookies.settings_of(request)
        session = await sign_in(form=form, ip=ip, uow=facts_of(request).uow, settings=settings, gates=gates)
    except LineupError as refused:
        audit(request, None, "console_sign_in", refused.code)
        return login_form(request, status=refused.rest_status or 401, error=refusal(refused))
    audit(request, session.who, "console_sign_in", MsgCode.SUCCESS)
    response = redirect(request)
    cookies.keep_cookie(request, response, cookies.SESSION_COOKIE, session.token)
    cookies.drop_cookie(request, response, cookies.LOGIN_COOKIE)
    return response


@router.post("/logout")
async def logout(request: Request, signed: CurrentAgent) -> Response:
    if isinstance(refused := await posting_agent(request, signed), Response):
        return refused
    assert signed.token is not None  # a session is signed in
    await sign_out(token=signed.token, uow=facts_of(request).uow)
    response = redirect(request, "/login")
    cookies.drop_cookie(request, response, cookies.SESSION_COOKIE)
    return response


@router.get("/stuck")
async def stuck(request: Request, signed: CurrentAgent) -> Response:
    return await show(request, signed, "stuck")


@router.get("/waiting")
async def waiting(request: Request, signed: CurrentAgent) -> Response:
    return await show(request, signed, "waiting")


@router.get("/ports")
async def ports(request: Request, signed: CurrentAgent) -> Response:
    return await show(request, signed, "ports")


async def show(request: Request, signed: SignedIn, kind: str) -> Response:
    if signed.who is None:
        return to_sign_in(request, signed)
    rows = await PAGES[kind][1](ctx=context_of(request, signed.who, f"console_{kind}"))
    return listing(request, signed, kind, rows)


@router.get("/search")
async def search(request: Request, signed: CurrentAgent, q: str = "", done: str = "") -> Response:
    if signed.who is None:
        return to_sign_in(request, signed)
    if not q.strip():
        return listing(request, signed, "search", [], q="")
    try:
        wanted = Search.model_validate({"q": q})
    except ValidationError as invalid:
        return listing(request, signed, "search", [], q=q[:100], error=first_problem(invalid), status=400)
    rows = await console.search(wanted=wanted.q, ctx=context_of(request, signed.who, "console_search"))
    return listing(request, signed, "search", rows, q=wanted.q, searched=True, notice=DONE.get(done))


@router.post("/lines/{enrollment_id}/retry")
async def retry(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    return await act(request, signed, enrollment_id, "retry_enrollment", console.retry)


@router.post("/lines/{enrollment_id}/activate")
async def activate(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    return await act(request, signed, enrollment_id, "activate_line", console.activate)


async def act(request: Request, signed: SignedIn, enrollment_id: str, action: str, run: RowAction) -> Response:
    """A row's button: checks the session and its CSRF token, runs the action, and shows the line (its new
    state) in the search, or the page again with what went wrong. Audited as `/ops` calls are."""
    who = await posting_agent(request, signed)
    if isinstance(who, Response):
        return who
    try:
        line = LineAction.model_validate({"enrollment_id": enrollment_id})
    except ValidationError:
        return problem(request, 404, "Not found", "No line has that enrollment id.")
    ctx = context_of(request, who, action)
    try:
        done = await run(enrollment_id=line.enrollment_id, ctx=ctx)
    except LineupError as refused:
        audit(request, who, action, refused.code)
        rows = await console.search(wanted=line.enrollment_id, ctx=ctx)
        return listing(
            request,
            signed,
            "search",
            rows,
            q=line.enrollment_id,
            searched=True,
            error=refusal(refused),
            status=refused.rest_status or 400,
        )
    audit(request, who, action, MsgCode.SUCCESS)
    return redirect(request, "/search", q=line.enrollment_id, done=done)


@router.api_route("/{anything:path}", methods=["GET", "POST"])
async def not_found(request: Request) -> Response:
    """Any other console address: an HTML 404, not the API's `Module does not exist` envelope."""
    return problem(request, 404, "Not found", "There is no such page in the support console.")
