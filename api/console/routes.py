"""The support console at `/console`: server-rendered pages for agents with the `support` role, over the same
operations `/ops` and `/customer` use. Here: sign-in, the pages' rendering, the lists of lines and their rows'
Retry and Activate; the enrollment and webhooks pages are enrollments.py's, the first page overview.py's.

The session cookie holds a random token (the database keeps only its hash): HttpOnly, SameSite=Strict, Secure
in production, scoped to the console's path. Every POST carries a CSRF token: bound to the session (an HMAC of
its token), or before sign-in to a cookie of its own (double submit)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Annotated, Protocol, TypeVar
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError
from sqlmodel import col

from api import enrollment, support
from api.access import THROTTLED, Busy, LoginGates
from api.dispatch import Caller, Context
from api.edge import facts_of
from models.auth import LOCKED, ConsoleLogin, Throttle, claim_login, release_login, settle_login
from models.crypto import verify_secret_async
from models.db import UnitOfWork
from models.enrollment.actions import ActivateLine
from models.enrollment.lines import Line, LineStatus
from models.envelope import LineupError, MsgCode, refuse
from models.observability import login_refused
from models.porting import PortIn, PortStatus
from models.settings import Settings
from models.support import (
    AgentLogin,
    ConsoleAgent,
    LineAction,
    Retried,
    RetryEnrollment,
    RetryMany,
    Search,
    SessionLimits,
    SignIn,
    active_agent,
    agent_logins,
    end_session,
    find_lines,
    lines_in_status,
    open_session,
    ports_in_status,
    shown_error,
    touch_session,
    waiting_lines,
)
from models.types import utcnow
from workflows.enrollment import line_query, line_workflow_id, port_workflow_id

SESSION_COOKIE = "lineup_console"
LOGIN_COOKIE = "lineup_console_login"  # the sign-in form's CSRF token, before there is a session
CSRF_FIELD = "csrf"
HERE = Path(__file__).parent
templates = Jinja2Templates(directory=HERE / "templates")
STYLESHEET = (HERE / "static" / "console.css").read_text()
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
        "base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",  # pages show customers' lines: not for a shared cache or the back button
}
INVALID = "Invalid username or password"
WHICH_VENDOR = "Agents of several vendors have this username: enter your vendor id as well"
FORGED = "This form did not come from your console session, or the session has changed. Reload the page and try again."
MOST_SHOWN = 200  # rows a page lists, longest waiting first
NO_API_USER = 0  # the console acts as an agent, not as an API user; its operations never read the API user's id
TITLES = {"stuck": "Stuck lines", "waiting": "Waiting for activation", "ports": "Port-ins awaiting resolution"}
# What a page says after its button worked (the redirect names the outcome, never free text).
DONE = {
    "retried": "Retry sent: the line's workflow is trying its step again. Reload to follow it.",
    "started": "The line's order had never started; its workflow has been started.",
    "activated": "Line activated.",
    "activating": "Activation sent; the carrier has not answered yet. Reload to follow it.",
    "corrected": "Correction saved. Retry the line to send it to the carrier.",
    "resubmitted": "Correction sent: the port-in was resubmitted to the carrier.",
    "disabled": "Endpoint disabled.",
    "again": "Delivery queued again (same event id).",
}

T = TypeVar("T")
Work = Callable[[Context], Awaitable[T]]


class RowAction(Protocol):
    def __call__(self, *, enrollment_id: str, ctx: Context) -> Awaitable[str]: ...


@dataclass(frozen=True)
class SignedIn:
    """The request's agent and session token; `who` is None without a live session (`ended`: there was one)."""

    who: ConsoleAgent | None
    token: str | None

    @property
    def ended(self) -> bool:
        return self.who is None and bool(self.token)


async def current(request: Request) -> SignedIn:
    """The agent of the request's live session, its idle clock moved; none for no session, one that ended (idle,
    too old, or begun before its agent's last password change: now deleted), or an agent who lost the support
    role or was disabled since signing in."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return SignedIn(None, token)
    async with facts_of(request).uow.transaction() as session:
        agent_id = await touch_session(session, token, limits=SessionLimits.of(settings_of(request)))
        found = await active_agent(session, agent_id) if agent_id is not None else None
        if agent_id is not None and (found is None or support.SUPPORT not in found.agent.roles):
            await end_session(session, token)
            found = None
    return SignedIn(found, token)


CurrentAgent = Annotated[SignedIn, Depends(current)]


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
        return duration(self.since, now=utcnow())

    @property
    def retryable(self) -> bool:
        return self.status in support.WAITING

    @property
    def activatable(self) -> bool:
        return self.status == LineStatus.WAITING_ACTIVATION


@dataclass(frozen=True)
class Failed:
    """A console POST refused: its status, and the words its page shows."""

    status: int
    error: str


router = APIRouter(prefix="/console", include_in_schema=False)


@router.get("/console.css")
async def console_css() -> Response:
    return Response(STYLESHEET, media_type="text/css", headers={"Cache-Control": "max-age=3600"})


@router.get("/login")
async def login_page(request: Request, signed: CurrentAgent, ended: str = "") -> Response:
    if signed.who is not None:
        return redirect(request)
    return login_form(request, notice="Your session has ended. Sign in again." if ended or signed.ended else None)


@router.post("/login")
async def login(request: Request) -> Response:
    fields = await text_fields(request)
    if not csrf_matches(request.cookies.get(LOGIN_COOKIE), fields.get(CSRF_FIELD)):
        return problem(request, 403, "Forbidden", FORGED)
    try:
        form = SignIn.model_validate(fields)
    except ValidationError as invalid:
        return login_form(request, status=400, error=first_problem(invalid))
    ip, resources = request.client.host if request.client else None, request.app.state.resources
    try:
        token, who = await sign_in(
            form=form, ip=ip, uow=facts_of(request).uow, settings=resources.settings, gates=resources.gates
        )
    except LineupError as refused:
        audit(request, None, "console_sign_in", refused.code)
        if refused.rest_status in (401, 429):  # credentials refused (wrong, locked, throttled), not an outage
            login_refused("console")
        return login_form(request, status=refused.rest_status or 401, error=refusal(refused))
    audit(request, who, "console_sign_in", MsgCode.SUCCESS)
    response = redirect(request)
    cookie(request, response, SESSION_COOKIE, token)
    cookie(request, response, LOGIN_COOKIE)
    return response


@router.post("/logout")
async def logout(request: Request, signed: CurrentAgent) -> Response:
    if isinstance(refused := await posting_agent(request, signed), Response):
        return refused
    assert signed.token is not None  # a session is signed in
    async with facts_of(request).uow.transaction() as session:
        await end_session(session, signed.token)
    response = redirect(request, "/login")
    cookie(request, response, SESSION_COOKIE)
    return response


@router.get("/stuck")
@router.get("/waiting")
@router.get("/ports")
async def lines_page(request: Request, signed: CurrentAgent) -> Response:
    """A list page (TITLES), named by its path."""
    if signed.who is None:
        return to_sign_in(request, signed)
    kind = request.url.path.rsplit("/", 1)[-1]
    return listing(request, signed, kind, await page_rows(kind, ctx=context_of(request, signed.who, f"console_{kind}")))


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
    rows = await search_lines(wanted=wanted.q, ctx=context_of(request, signed.who, "console_search"))
    return listing(request, signed, "search", rows, q=wanted.q, searched=True, notice=DONE.get(done))


@router.post("/lines/{enrollment_id}/retry")
async def retry(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    return await act(request, signed, enrollment_id, "retry_enrollment", retry_from_console)


@router.post("/lines/{enrollment_id}/activate")
async def activate(request: Request, signed: CurrentAgent, enrollment_id: str) -> Response:
    return await act(request, signed, enrollment_id, "activate_line", activate_from_console)


@router.post("/retry-many")
async def retry_many(request: Request, signed: CurrentAgent) -> Response:
    """The stuck page's bulk retry: every matching stuck line of the vendor, as `retry_enrollment` all_stuck Y."""
    who = await posting_agent(request, signed)
    if isinstance(who, Response):
        return who

    async def work(ctx: Context) -> int:
        form = RetryMany.model_validate(await text_fields(request))
        fields = {"action": "retry_enrollment", "all_stuck": "Y", **form.model_dump(exclude_none=True)}
        answer = await support.retry_enrollment(body=RetryEnrollment.model_validate(fields), ctx=ctx)
        return len(getattr(answer, "retried", []))

    retried = await attempt(request, who, "retry_enrollment", work)
    rows = await page_rows("stuck", ctx=context_of(request, who, "retry_enrollment"))
    if isinstance(retried, Failed):
        return listing(request, signed, "stuck", rows, status=retried.status, error=retried.error)
    return listing(request, signed, "stuck", rows, notice=f"Retry sent to {retried} lines.")


@router.api_route("/{anything:path}", methods=["GET", "POST"])
async def not_found(request: Request) -> Response:
    """Any other console address: an HTML 404, not the API's `Module does not exist` envelope."""
    return problem(request, 404, "Not found", "There is no such page in the support console.")


async def act(request: Request, signed: SignedIn, enrollment_id: str, action: str, run: RowAction) -> Response:
    """A row's button: runs the action as the session's agent and shows the line (its new state) in the search,
    or the page again with what went wrong."""
    who = await posting_agent(request, signed)
    if isinstance(who, Response):
        return who
    try:
        q = LineAction.model_validate({"enrollment_id": enrollment_id}).enrollment_id
    except ValidationError:
        return problem(request, 404, "Not found", "No line has that enrollment id.")
    done = await attempt(request, who, action, lambda ctx: run(enrollment_id=q, ctx=ctx))
    if isinstance(done, Failed):
        rows = await search_lines(wanted=q, ctx=context_of(request, who, action))
        return listing(request, signed, "search", rows, q=q, searched=True, error=done.error, status=done.status)
    return redirect(request, "/search", q=q, done=done)


async def retry_from_console(*, enrollment_id: str, ctx: Context) -> str:
    """`retry_enrollment` for one line: `retried` (its workflow tries the step again) or `started` (its order
    had never started)."""
    body = RetryEnrollment.model_validate({"action": "retry_enrollment", "enrollment_id": enrollment_id})
    answer = await support.retry_enrollment(body=body, ctx=ctx)
    return "started" if isinstance(answer, Retried) and answer.status == "STARTED" else "retried"


async def activate_from_console(*, enrollment_id: str, ctx: Context) -> str:
    """`activate_line` for one line, with the SIM attached to it: `activated`, or `activating` while the
    carrier has not answered within LINEUP_SYNC_WAIT_SECONDS."""
    body = ActivateLine.model_validate({"action": "activate_line", "enrollment_id": enrollment_id})
    [entry] = await enrollment.activate_line(body=body, ctx=ctx)
    return "activated" if entry.data.mdn else "activating"


async def attempt(
    request: Request, who: ConsoleAgent, action: str, work: Work[T], *, audit_invalid: bool = False
) -> T | Failed:
    """A console POST's work, run as `who` and audited as `/ops` calls are (an invalid form only where
    `audit_invalid`): its outcome, or its refusal as the page shows it."""
    try:
        done = await work(context_of(request, who, action))
    except ValidationError as invalid:
        if audit_invalid:
            audit(request, who, action, MsgCode.ERROR)
        return Failed(400, first_problem(invalid))
    except LineupError as refused:
        audit(request, who, action, refused.code)
        return Failed(refused.rest_status or 400, refusal(refused))
    audit(request, who, action, MsgCode.SUCCESS)
    return done


async def sign_in(
    *, form: SignIn, ip: str | None, uow: UnitOfWork, settings: Settings, gates: LoginGates
) -> tuple[str, ConsoleAgent]:
    """A new session of the support agent (its token, for the browser's cookie only), or a refusal (LineupError)
    that says as little as it can."""
    if not gates.console.admit(ip):
        raise refuse(THROTTLED, rest_status=429)
    async with uow.transaction() as session:
        # Only agents who may sign in are candidates: a name one vendor gives a support agent and another an
        # agent without the role names the first alone, and needs no vendor id.
        logins = [
            found
            for found in await agent_logins(session, form.username, vendor_code=form.vendor_id)
            if found.agent.active and found.vendor_active and support.SUPPORT in found.agent.roles
        ]
    if not logins:
        # Verified against the dummy hash, uncounted, so that it costs what any sign-in costs: an agent who may not
        # sign in answers what a wrong password does, whatever password it was sent with.
        await _verify(gates, None, form.password)
        raise refuse(INVALID, rest_status=401)
    # The password picks among the candidates: whether several vendors have a support agent of this name is told
    # only to whoever knows a password that signs in at more than one of them (a wrong one answers as for one).
    matched = await _matching(logins, form.password, uow=uow, throttle=Throttle.of(settings), gates=gates)
    if len(matched) > 1:
        raise refuse(WHICH_VENDOR, rest_status=401)
    if not matched:
        raise refuse(INVALID, rest_status=401)
    [login] = matched
    agent = login.agent
    async with uow.transaction() as session:
        token = await open_session(
            session, agent_id=agent.id, vendor_id=agent.vendor_id, ip=ip, limits=SessionLimits.of(settings)
        )
    return token, ConsoleAgent(agent, login.vendor_code)


async def _matching(
    logins: list[AgentLogin], password: str, *, uow: UnitOfWork, throttle: Throttle, gates: LoginGates
) -> list[AgentLogin]:
    """The candidates whose console password this is, each attempt counted on the agent's console row (never its
    API password's). The hashes are verified side by side, each in a slot of the verification queue (up to
    LINEUP_LOGIN_VERIFY_CONCURRENCY at once): two candidates take about the time one does. Every candidate
    locked: LOCKED."""
    rows = {login.agent.id: col(ConsoleLogin.agent_id) == login.agent.id for login in logins}
    claimed = [
        login
        for login in logins
        if await claim_login(uow, ConsoleLogin, rows[login.agent.id], throttle, first={"agent_id": login.agent.id})
    ]
    if not claimed:
        raise refuse(LOCKED, rest_status=429)
    verified = await asyncio.gather(
        *(_verify(gates, login.password_hash, password) for login in claimed), return_exceptions=True
    )
    for login, ok in zip(claimed, verified, strict=True):
        if isinstance(ok, bool):
            await settle_login(uow, ConsoleLogin, rows[login.agent.id], throttle, ok=ok)
        else:  # never verified (the queue was full): neither a failure nor a success
            await release_login(uow, ConsoleLogin, rows[login.agent.id])
    if failed := next((ok for ok in verified if isinstance(ok, BaseException)), None):
        raise failed
    return [login for login, ok in zip(claimed, verified, strict=True) if ok is True]


async def _verify(gates: LoginGates, stored: str | None, offered: str) -> bool:
    """One argon2 in the shared verification queue; a full queue is a throttled sign-in."""
    try:
        async with gates.queue.slot():
            return await verify_secret_async(stored, offered)
    except Busy:
        raise refuse(THROTTLED, rest_status=429) from None


async def posting_agent(request: Request, signed: SignedIn) -> ConsoleAgent | Response:
    """Who a console POST acts as, or what it answers instead: the sign-in page without a session, 403 without
    the session's CSRF token in the form."""
    if signed.who is None or signed.token is None:
        return to_sign_in(request, signed)
    if not csrf_matches(session_csrf(signed.token), (await text_fields(request)).get(CSRF_FIELD)):
        return problem(request, 403, "Forbidden", FORGED)
    return signed.who


def context_of(request: Request, who: ConsoleAgent, action: str) -> Context:
    """The Context the console's actions run in: the signed-in agent, acting outside any API token chain."""
    facts, agent = facts_of(request), who.agent
    caller = Caller(agent.vendor_id, who.vendor_code, NO_API_USER, None, agent, action)
    return Context(caller, facts.uow, request.app.state.resources, facts.request_id)


def audit(request: Request, who: ConsoleAgent | None, action: str, code: MsgCode) -> None:
    """What the edge writes to the audit log (and counts) for this POST, as it does for `/ops`."""
    facts = facts_of(request)
    facts.action, facts.msg_code = action, code.value
    if who is not None:
        facts.vendor_id, facts.agent = who.agent.vendor_id, who.agent.username


def session_csrf(session_token: str) -> str:
    """Derived from the session's token: no second secret to store, and useless with any other session."""
    return hmac.new(session_token.encode(), b"lineup-console-csrf", hashlib.sha256).hexdigest()


def csrf_matches(expected: str | None, offered: object) -> bool:
    if not expected or not isinstance(offered, str):
        return False
    return hmac.compare_digest(expected.encode(), offered.encode())


def cookie(request: Request, response: Response, name: str, value: str | None = None) -> None:
    """Sets a console cookie, or without a value deletes it: with the same options, as a browser deletes only
    the cookie they name."""
    path, secure = console_path(request), settings_of(request).profile == "production"
    if value is None:
        response.delete_cookie(name, path=path, httponly=True, samesite="strict", secure=secure)
    else:
        response.set_cookie(name, value, path=path, httponly=True, samesite="strict", secure=secure)


async def page_rows(kind: str, *, ctx: Context) -> list[Row]:
    """A list page's rows, the vendor's, longest waiting first: the lines waiting for support (as
    `list_stuck_enrollments` answers them), those waiting for activation, or the port-ins the old carrier sent
    back for a correction (update_portin fixes them)."""
    vendor_id, settings = ctx.caller.vendor_id, ctx.settings
    async with ctx.uow.transaction() as session:
        if kind == "ports":
            found = await ports_in_status(
                session, PortStatus.RESOLUTION_REQUIRED, vendor_id=vendor_id, limit=MOST_SHOWN
            )
            return [_port_row(settings, line, port) for line, port in found]
        if kind == "waiting":
            lines = await lines_in_status(session, LineStatus.WAITING_ACTIVATION, vendor_id=vendor_id, limit=MOST_SHOWN)
        else:
            lines = await waiting_lines(session, support.waiting(settings), vendor_id=vendor_id, limit=MOST_SHOWN)
    return [_row(settings, line) for line in lines]


async def search_lines(*, wanted: str, ctx: Context) -> list[Row]:
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


def _row(settings: Settings, line: Line) -> Row:
    return Row(
        enrollment_id=line.enrollment_id,
        parent_enrollment_id=line.parent_enrollment_id,
        status=line.status,
        detail=shown_error(line),
        since=line.status_since,
        workflow_url=line_url(settings, line),
        mdn=line.mdn,
        customer_id=line.customer_id,
    )


def _port_row(settings: Settings, line: Line, port: PortIn) -> Row:
    return replace(
        _row(settings, line),
        status=port.status,
        detail=" ".join(part for part in (port.resolution_code, port.resolution_description) if part),
        since=port.responded_at or line.status_since,
        workflow_url=workflow_url(settings, port_workflow_id(line.enrollment_id)),
        port_number=port.port_number,
    )


def line_url(settings: Settings, line: Line) -> str:
    """Where the Temporal UI shows the line: a line with work left in its own workflow (`line-<id>`); an ACTIVE
    line, which its order's first try may have activated with no workflow of its own, in the list of its order's
    workflow and any of its own (workflows.enrollment's search attributes)."""
    if line.status != LineStatus.ACTIVE:
        return workflow_url(settings, line_workflow_id(line.enrollment_id))
    return workflows_url(settings, line_query(line.enrollment_id))


def workflows_url(settings: Settings, query: str) -> str:
    """The Temporal UI's list of the workflows a visibility query finds."""
    namespace = quote(settings.temporal.namespace, safe="")
    return f"{settings.temporal.ui}/namespaces/{namespace}/workflows?{urlencode({'query': query})}"


def workflow_url(settings: Settings, workflow_id: str) -> str:
    """The workflow's page in the Temporal UI (LINEUP_TEMPORAL_UI_URL)."""
    namespace = quote(settings.temporal.namespace, safe="")
    return f"{settings.temporal.ui}/namespaces/{namespace}/workflows/{quote(workflow_id, safe='')}"


def html(request: Request, template: str, *, status: int = 200, **context: object) -> HTMLResponse:
    context = {"console": console_path(request), **context}
    response = templates.TemplateResponse(request, template, context, status_code=status)
    response.headers.update(HEADERS)
    return response


def page(
    request: Request, signed: SignedIn, template: str, kind: str, title: str, *, status: int = 200, **values: object
) -> Response:
    """A page of the signed-in agent (`kind` marks its place in the menu): who it is in the header, the session's
    CSRF token in every form."""
    assert signed.who is not None and signed.token is not None
    csrf = session_csrf(signed.token)
    return html(request, template, status=status, who=signed.who, csrf=csrf, kind=kind, title=title, **values)


def listing(
    request: Request, signed: SignedIn, kind: str, rows: list[Row], *, status: int = 200, **extra: object
) -> Response:
    return page(request, signed, "lines.html", kind, TITLES.get(kind, "Search"), status=status, rows=rows, **extra)


def login_form(request: Request, *, status: int = 200, error: str | None = None, notice: str | None = None) -> Response:
    # The browser's login cookie if it has one (other tabs keep working), else a new token.
    offered = request.cookies.get(LOGIN_COOKIE, "")
    token = offered if len(offered) == 43 and offered.isascii() else secrets.token_urlsafe(32)
    response = html(request, "login.html", status=status, csrf=token, error=error, notice=notice)
    cookie(request, response, LOGIN_COOKIE, token)
    return response


def problem(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    """A page for a refused request (403, 404): the console answers HTML, never the API's envelope."""
    return html(request, "problem.html", status=status, title=title, message=message)


def problem_page(request: Request, status: int, title: str, message: str) -> HTMLResponse | None:
    """The console's page for a failure of one of its own requests (api.edge answers others in the envelope)."""
    return problem(request, status, title, message) if request.url.path.startswith(console_path(request)) else None


def redirect(request: Request, path: str = "", **query: str) -> RedirectResponse:
    """303 See Other: after a POST, the browser GETs the page (Post/Redirect/Get)."""
    target = f"{console_path(request)}{path}" + (f"?{urlencode(query)}" if query else "")
    return RedirectResponse(target, status_code=303, headers=HEADERS)


def to_sign_in(request: Request, signed: SignedIn) -> Response:
    response = redirect(request, "/login", **({"ended": "1"} if signed.ended else {}))
    if signed.ended:
        cookie(request, response, SESSION_COOKIE)
    return response


def duration(since: datetime, *, now: datetime) -> str:
    """How long ago, as a person reads it: 45 s, 12 min, 3 h, 2 d."""
    seconds = max(0, int((now - since).total_seconds()))
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    return f"{field}: {first['msg']}" if field else str(first["msg"])


def refusal(error: LineupError) -> str:
    return error.errors[0] if error.errors else error.msg


async def text_fields(request: Request) -> dict[str, str]:
    return {name: value for name, value in (await request.form()).items() if isinstance(value, str)}


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.resources.settings
    return settings


def console_path(request: Request) -> str:
    return f"{settings_of(request).api.base_path}/console"
