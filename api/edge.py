"""The edge every HTTP request passes: whose address it is from (the trusted proxies' rule), the one ASGI middleware
(request id, Facts, body limits, access log, metrics, the last-resort 500), the HTTP protocol uvicorn serves with
(read deadlines), the body parsed as strict JSON, pydantic's problems in words, the envelope rendered, and the
handlers that answer every failure outside the dispatcher. No FastAPI `{"detail": …}` leaves on any path."""

from __future__ import annotations

import asyncio
import ctypes
import ipaddress
import json
import logging
import multiprocessing
import os
import re
import signal
import socket
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import ClassVar, cast

import asyncpg
import h11
import pydantic_core
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from sqlalchemy import exc as sql
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from models import auth, observability
from models.db import Database, UnitOfWork, database_unavailable
from models.envelope import Envelope, LineupError, MsgCode, refuse
from models.settings import ApiSettings, Settings, get_settings

KEY = "facts"


@dataclass
class Facts:
    request_id: str
    uow: UnitOfWork
    started: float  # perf_counter() when the request arrived
    action: str | None = None
    vendor_id: int | None = None
    api_user_id: int | None = None
    agent: str | None = None
    msg_code: str | None = None  # set once an envelope answered
    status: int | None = None
    fresh_token: str | None = None  # the token the answer carries (past the token check)
    token_failure: str | None = None  # why the token check refused: missing, unknown, used, expired
    external_transaction_id: str | None = None  # echoed back when the body carried a well-formed one
    database_down: bool = False  # an outage answered: no audit row (writing it would wait on the same outage)
    audited: bool = False  # the dispatcher wrote the audit row in the request's own transaction
    outage: bool = False  # answered with an outage error (502, 503, 504 in rest mode): counted for the alerts
    body_limit: int = 0  # bytes the body may carry, by its path

    def audit_row(self, path: str, status: int) -> auth.AuditFacts:
        """The call's audit row: who, what, the outcome and how long, never the body."""
        return auth.AuditFacts(
            request_id=self.request_id,
            # As the client sent it, but for a `%00` (decoded, a NUL, which PostgreSQL's text cannot hold).
            path=path.replace("\x00", "\N{REPLACEMENT CHARACTER}"),
            action=self.action,
            vendor_id=self.vendor_id,
            api_user_id=self.api_user_id,
            agent_username=self.agent,
            msg_code=self.msg_code or "",
            http_status=status,
            duration_ms=int((time.perf_counter() - self.started) * 1000),
        )


def facts_of(request: Request) -> Facts:
    return cast(Facts, request.scope["state"][KEY])


log = logging.getLogger("lineup.access")
_SLASHES = re.compile(r"/{2,}")


class Edge:
    """`direct`: the operation paths (POST only), called straight from here: the router would only find them, and
    their endpoint answers every outcome itself (api.dispatch.GroupEndpoint), outages included."""

    def __init__(self, app: ASGIApp, settings: Settings, direct: Mapping[str, ASGIApp] | None = None) -> None:
        self.app, self.settings = app, settings
        self.direct = dict(direct or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # the lifespan's and any other scope pass through
            await self.app(scope, receive, send)
            return
        # Channels of the original service post to `//authenticate`, some to `/plan/`: one route each, never a
        # redirect (a redirect is not the envelope).
        if "//" in scope["path"] or (scope["path"].endswith("/") and scope["path"] != "/"):
            scope["path"] = _SLASHES.sub("/", scope["path"]).rstrip("/") or "/"
        db: Database = scope["app"].state.resources.db
        facts = Facts(request_id=uuid.uuid4().hex, uow=UnitOfWork(db), started=time.perf_counter())
        scope.setdefault("state", {})[KEY] = facts
        try:
            await self._serve(scope, receive, send, facts)
        finally:
            try:
                await self._record(scope, facts)
            finally:
                await facts.uow.close()

    async def _serve(self, scope: Scope, receive: Receive, send: Send, facts: Facts) -> None:
        api = self.settings.api
        # Bytes the body may carry: `/auth` carries three proof images.
        group = scope["path"].removeprefix(api.base_path).strip("/").split("/", 1)[0]
        limit = facts.body_limit = api.max_auth_body_bytes if group == "auth" else api.max_body_bytes
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await render_refusal(api, facts, BodyTooLarge(limit))(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline, seen, body_done, expired, sent = loop.time() + api.body_timeout_seconds, 0, False, False, False

        async def bounded_receive() -> Message:
            # The whole body must arrive within LINEUP_BODY_TIMEOUT_SECONDS of the head, however it trickles in,
            # and no larger than the limit; after it, a receive waits for the client to go away: not bounded.
            nonlocal seen, body_done, expired
            if body_done:
                return await receive()
            try:
                # A timeout scope, not wait_for: wait_for wraps every receive in a task of its own.
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                expired = True
                raise BodyTooSlow(api.body_timeout_seconds) from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            body_done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        async def marked_send(message: Message) -> None:
            nonlocal sent
            if message["type"] == "http.response.start":
                sent = True
                facts.status = message["status"]
                headers = message.setdefault("headers", [])
                headers.append((b"x-request-id", facts.request_id.encode()))
                if expired:  # the rest of the body is still on its way: the connection cannot carry another
                    headers.append((b"connection", b"close"))
            await send(message)

        target = self.direct.get(scope["path"], self.app) if scope["method"] == "POST" else self.app
        try:
            await target(scope, bounded_receive, marked_send)
        except Exception:
            log.exception("unexpected failure", extra={"request_id": facts.request_id})
            if not sent:
                unexpected = refuse(f"Unexpected error; reference {facts.request_id}", rest_status=500)
                await render_refusal(api, facts, unexpected)(scope, receive, marked_send)

    async def _record(self, scope: Scope, facts: Facts) -> None:
        """The access-log line and the metrics of every request; the audit row of a call answered with the
        envelope before the dispatcher wrote one (a missing module, a body refused)."""
        elapsed = time.perf_counter() - facts.started
        if facts.msg_code:  # calls that answered an envelope (not probes, docs or scrapes)
            observability.request_answered(facts.action, facts.msg_code, elapsed, outage=facts.outage)
        if facts.token_failure:
            observability.token_refused(facts.token_failure)
        fields = {
            "request_id": facts.request_id,
            "method": scope["method"],
            "path": scope["path"],
            "action": facts.action,
            "agent": facts.agent,
            "vendor_id": facts.vendor_id,
            "api_user_id": facts.api_user_id,
            "msg_code": facts.msg_code,
            "status": facts.status or 500,
            "duration_ms": int(elapsed * 1000),
        }
        log.info("request", extra={"fields": fields})
        if facts.audited or not (facts.msg_code and scope["method"] == "POST") or facts.database_down:
            return
        try:
            await auth.record_audit(facts.uow, facts.audit_row(scope["path"], facts.status or 500))
        except Exception:
            log.exception("audit write failed", extra={"request_id": facts.request_id})


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class TrustedProxies:
    """Whose address a request is from: the socket's peer, or the one X-Forwarded-For (and X-Forwarded-Proto) names
    when that peer is one of LINEUP_TRUSTED_PROXIES, by uvicorn's own rule (its ProxyHeadersMiddleware: the nearest
    address of the chain that is not itself a trusted proxy). The app applies it itself, so it holds whatever server
    runs it: the login rates count per address, and a header anyone may send must not pick the address.

    `lineup run` and `make api` start uvicorn with `--no-proxy-headers`. A server that believes forwarding headers
    itself (plain `uvicorn` does, from any loopback client) hands the app an address the header named, and the
    socket's peer is lost: such a request counts as from an unknown address (one rate bucket for all of them), and
    a warning says so once."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.trusted = trusted_networks(settings.api.trusted_proxy_list)
        # uvicorn's own names for the ASGI types, which starlette's are: the same callables.
        self.believe = ProxyHeadersMiddleware(app, [str(network) for network in self.trusted])  # type: ignore[arg-type]
        self.warned = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self._named_by_the_header(scope):
            scope["client"] = None
        await self.believe(scope, receive, send)  # type: ignore[arg-type]

    def _named_by_the_header(self, scope: Scope) -> bool:
        """True when the client address is one X-Forwarded-For names and not a proxy of ours: the server believed
        the header (or a client named itself, which earns nothing either)."""
        client = scope.get("client")
        forwarded = b",".join(value for name, value in scope["headers"] if name == b"x-forwarded-for")
        if not client or not forwarded:
            return False
        peer = _address(client[0])
        if peer is None or any(peer in network for network in self.trusted):
            return False
        if peer not in {_address(_host(item)) for item in forwarded.decode("latin-1").split(",")}:
            return False
        if not self.warned:
            self.warned = True
            log.warning(
                "a client address came from X-Forwarded-For, not from the socket: the server believes forwarding "
                "headers itself (start uvicorn with --no-proxy-headers; LINEUP_TRUSTED_PROXIES names the proxies); "
                "such requests count as from an unknown address"
            )
        return True


def trusted_networks(entries: list[str]) -> list[Network]:
    """LINEUP_TRUSTED_PROXIES as networks, each IPv4 one also as its IPv4-mapped IPv6 form: a server listening on
    `::` sees an IPv4 proxy as ::ffff:a.b.c.d."""
    networks: list[Network] = []
    for entry in entries:
        network = ipaddress.ip_network(entry, strict=False)
        networks.append(network)
        if isinstance(network, ipaddress.IPv4Network):
            networks.append(ipaddress.IPv6Network(f"::ffff:{network.network_address}/{96 + network.prefixlen}"))
    return networks


def _host(item: str) -> str:
    """The address of one X-Forwarded-For item: `a.b.c.d`, `a.b.c.d:port`, `[v6]:port` or a bare IPv6 address."""
    item = item.strip()
    if item.startswith("["):
        return item[1:].split("]", 1)[0]
    return item.rsplit(":", 1)[0] if item.count(":") == 1 else item


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


class BodyRefused(LineupError):
    """Raised from `receive`: answered as RESTAPI110 (its status in `rest` mode), or by a console page."""

    def __init__(self, problem: str, status: int) -> None:
        super().__init__(MsgCode.ERROR, "Error occurred", [problem], rest_status=status)
        self.problem = problem


class BodyTooLarge(BodyRefused):
    def __init__(self, limit: int) -> None:
        super().__init__(f"Request body exceeds the limit of {limit} bytes", 413)


class BodyTooSlow(BodyRefused):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"The request body was not received within {seconds:g} seconds", 408)


DATABASE_DOWN = "The database is unavailable, please try again later"
Handler = Callable[[Request, Exception], Awaitable[Response]]


# The console's own page for a failure of one of its requests (api.console.routes.problem_page); None elsewhere.
Page = Callable[[Request, int, str, str], Response | None]


def install(app: FastAPI, page: Page) -> None:
    """The envelope for every failure outside the dispatcher; `page` answers those of the console's pages."""
    app.add_exception_handler(LineupError, on_lineup_error)
    app.add_exception_handler(RequestValidationError, on_invalid_request)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(BodyRefused, on_body_refused(page))
    database_error = on_database_error(page)
    for outage in OUTAGES:
        app.add_exception_handler(outage, database_error)


# Where a database outage surfaces: the driver's wrapped errors, the pool's wait, a refused socket.
OUTAGES: tuple[type[Exception], ...] = (sql.DBAPIError, sql.TimeoutError, asyncpg.PostgresError, OSError)


def answer(request: Request, error: LineupError) -> Response:
    return render_refusal(request.app.state.resources.settings.api, facts_of(request), error)


async def on_lineup_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LineupError)
    return answer(request, exc)


async def on_invalid_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    found = dict.fromkeys(message for issue in exc.errors() for message in describe(issue))
    return answer(request, refuse(*found))


def on_body_refused(page: Page) -> Handler:
    async def handle(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, BodyRefused) and exc.rest_status is not None
        return page(request, exc.rest_status, "The request was refused", exc.problem) or answer(request, exc)

    return handle


async def on_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405 become module and method errors, in the order decisions.md gives."""
    assert isinstance(exc, StarletteHTTPException)
    base_path = request.app.state.resources.settings.api.base_path
    if request.method != "POST" or exc.status_code == 405:
        error = LineupError(MsgCode.TOKEN, "Invalid Access!!", rest_status=405)
    elif exc.status_code == 404 and request.url.path.rstrip("/") == base_path.rstrip("/"):
        error = LineupError(MsgCode.MODULE_REQUIRED, "Module required")
    elif exc.status_code == 404:
        error = LineupError(MsgCode.MODULE_UNKNOWN, "Module does not exist")
    else:
        error = refuse(str(exc.detail), rest_status=exc.status_code)
    return answer(request, error)


def on_database_error(page: Page) -> Handler:
    """A database that cannot be reached is an outage, answered as Temporal's and the carrier's are (503 in
    `rest` mode; the support console's pages say it in a page of their own); any other database error is a
    bug, left to the last-resort 500 (the Edge)."""

    async def handle(request: Request, exc: Exception) -> Response:
        if not database_unavailable(exc):
            raise exc
        facts = facts_of(request)
        log.warning("database unavailable: %s", exc, extra={"request_id": facts.request_id})
        facts.database_down = True  # no audit row: writing one would wait on the same outage
        facts.fresh_token = None  # the claim and the next token were not stored
        shown = page(request, 503, "The console is unavailable", DATABASE_DOWN)
        return shown or answer(request, refuse(DATABASE_DOWN, rest_status=503))

    return handle


JSON = "application/json"


# Status per code in `rest` mode, 400 for any other refusal; an error may name its own (405, 409, 413, 502, …).
REST_STATUS: dict[MsgCode, int] = {
    MsgCode.SUCCESS: 200,
    MsgCode.TOKEN: 401,
    MsgCode.MODULE_REQUIRED: 404,
    MsgCode.MODULE_UNKNOWN: 404,
    MsgCode.SOURCE: 403,
    MsgCode.AGENT: 403,
    MsgCode.COMPANY: 403,
    MsgCode.UNAUTHORIZED: 403,
}
OUTAGE_STATUSES = frozenset({502, 503, 504})  # something the call needed was down: the alerts' outage class


def status_of(settings: ApiSettings, code: MsgCode, rest_status: int | None = None) -> int:
    status = rest_status or REST_STATUS.get(code, 400)
    return 200 if settings.http_status == "legacy" and status != 500 else status


def render(settings: ApiSettings, facts: Facts, envelope: Envelope, *, rest_status: int | None = None) -> Response:
    """Adds the token the answer carries (a RESTAPI001 answer carries "", decisions.md) and the echoed
    transaction id, records the outcome in the request's facts, and serializes once."""
    token = envelope.token
    if token is None:
        token = "" if envelope.msg_code is MsgCode.TOKEN else facts.fresh_token
    envelope = replace(envelope, token=token, external_transaction_id=facts.external_transaction_id)
    facts.msg_code = envelope.msg_code.value
    facts.status = status_of(settings, envelope.msg_code, rest_status)
    facts.outage = (rest_status or REST_STATUS.get(envelope.msg_code, 400)) in OUTAGE_STATUSES
    return Response(pydantic_core.to_json(envelope.body()), status_code=facts.status, media_type=JSON)


def render_refusal(settings: ApiSettings, facts: Facts, error: LineupError) -> Response:
    return render(settings, facts, refusal(error), rest_status=error.rest_status)


def refusal(error: LineupError) -> Envelope:
    """A LineupError as the envelope says it (with the data it shows beside it, when it has any)."""
    envelope = Envelope(msg_code=error.code, msg=error.msg, errors=error.errors)
    if error.data is not None:
        envelope = replace(envelope, data=pydantic_core.to_jsonable_python(error.data))
    return envelope


JsonObject = dict[str, object]

BOM = b"\xef\xbb\xbf"
STRIDE = 256 * 1024  # bytes one search of the scan looks through (about a millisecond, the GIL held)
_STRUCTURE = re.compile(rb'[{}\[\]:"]')
_OPEN_OBJECT, _OPEN_ARRAY, _CLOSE, _QUOTE = b"{", b"[", b"}]", b'"'
_SHOWN_KEY = re.compile(r"[\w .-]{1,40}")


class BodyProblem(Exception):  # not a ValueError: json's own errors are told apart from it
    """Why the body is not a JSON object Lineup takes: the words of the answer's `errors`."""


def parse(raw: bytes, max_members: int) -> JsonObject:
    """The body's JSON object, or BodyProblem saying why not."""
    if raw.startswith(BOM):
        raise BodyProblem("Request body starts with a byte order mark; send UTF-8 without one")
    try:
        # surrogatepass as json itself decodes bytes: an escaped lone surrogate reaches the field it is in, which
        # refuses it by name (models.types.malformed)
        text = raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise BodyProblem("Request body is not UTF-8 text") from None
    # Fewer colons than the limit in all (strings' own included): no object can hold more members, nothing to scan.
    if raw.count(b":") > max_members and _crowded(raw, max_members):
        raise BodyProblem(f"A JSON object of the body has more than {max_members} members")
    try:
        payload = json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise BodyProblem("Request body is not valid JSON") from None
    if not isinstance(payload, dict):
        raise BodyProblem("Request body must be a JSON object")
    return payload


def _crowded(raw: bytes, limit: int) -> bool:
    """True when an object of the body has more than `limit` members, found by scanning structure only: a string
    is jumped over (memchr to its closing quote), nothing is built. A body that is not JSON at all is left to json
    to describe."""
    members: list[int | None] = []  # per open container: an object's members so far (its colons); None: an array
    position, end = 0, len(raw)
    while position < end:
        found = _STRUCTURE.search(raw, position, min(end, position + STRIDE))
        if found is None:
            position += STRIDE
            continue
        mark, position = raw[found.start() : found.end()], found.end()
        if mark == _QUOTE:
            position = _after_string(raw, position)
        elif mark in (_OPEN_OBJECT, _OPEN_ARRAY):
            members.append(0 if mark == _OPEN_OBJECT else None)
        elif mark in _CLOSE:
            if members:
                members.pop()
        elif members and (count := members[-1]) is not None:  # a colon: one more member of this object
            if count == limit:
                return True
            members[-1] = count + 1
    return False


def _after_string(raw: bytes, position: int) -> int:
    """Where the string that opened just before `position` ends (past its closing quote; the end if never)."""
    while (quote := raw.find(_QUOTE, position)) >= 0:
        slashes = 0
        while raw[quote - 1 - slashes] == 0x5C:  # backslashes: an odd run escapes the quote
            slashes += 1
        if slashes % 2 == 0:
            return quote + 1
        position = quote + 1
    return len(raw)


def _unique(pairs: list[tuple[str, object]]) -> JsonObject:
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            shown = f" ({key!r})" if _SHOWN_KEY.fullmatch(key) else ""  # a name that reads as one, not any text
            raise BodyProblem(f"A JSON object of the body has a key twice{shown}")
        seen.add(key)
    return found


def _no_constant(name: str) -> object:
    raise BodyProblem(f"Request body holds {name}, which is not a JSON number")


LABELS = {
    "ssn": "SSN",
    "port_ssn": "Port SSN",
    "dob": "Date of birth",
    "imei": "IMEI",
    "iccid": "ICCID",
    "uiccid": "UICCID",
    "esn": "ESN",
    "old_esn": "Old ESN",
    "mdn": "MDN",
    "cvv": "CVV",
    "sku_type": "SKU type",
    "query_sim_info": "Query SIM info",
    "exp_month": "Expiry month",
    "exp_year": "Expiry year",
    "address1": "Address line 1",
    "address2": "Address line 2",
    "ip_address": "IP address",
    "login_log_otp": "Login log OTP",
    "agent_change_password": "Agent change password proof",
}


def label(field: str) -> str:
    """`enrollment_id` → `Enrollment Id`; `service_zip` → `Service zip`."""
    if field in LABELS:
        return LABELS[field]
    words = field.split("_")
    if words[-1] == "id":
        return " ".join(word.capitalize() for word in words)
    return " ".join(words).capitalize()


def _place(loc: tuple[int | str, ...]) -> tuple[str, str]:
    """The field's label and, for an element of a list such as `lines`, a `Line 2: ` prefix."""
    parts = list(loc[1:] if loc[:1] == ("body",) else loc)
    prefix, field = "", "body"
    for index, part in enumerate(parts):
        if isinstance(part, int) and index > 0:
            prefix += f"{label(str(parts[index - 1])).rstrip('s')} {part + 1}: "
        elif isinstance(part, str):
            field = part
    return prefix, field


def describe(problem: ErrorDetails) -> list[str]:
    """One pydantic problem as messages; a conditional rule names every field it misses."""
    prefix, _ = _place(tuple(problem.get("loc", ())))
    if problem["type"] == "required_when":
        return [
            message
            for reason, fields in problem["ctx"]["problems"].items()
            for message in _required(prefix, reason, fields)
        ]
    return [_describe_one(problem)]


def _required(prefix: str, reason: str, fields: list[str]) -> list[str]:
    """`Please enter Zip` for a field the usual case needs; `Port SSN is required for a PORTIN activation` for
    one another field's value calls for."""
    if not reason:
        return [f"{prefix}Please enter {label(field)}" for field in fields]
    return [f"{prefix}{_join([label(f) for f in fields])} {'is' if len(fields) == 1 else 'are'} required for {reason}"]


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _describe_one(problem: ErrorDetails) -> str:
    kind = problem["type"]
    if kind == "json_invalid":
        return "Request body is not valid JSON"
    loc = tuple(problem.get("loc", ()))
    prefix, field = _place(loc)
    name = label(field)
    context = problem.get("ctx") or {}
    sent_null = problem.get("input", "") is None and loc and isinstance(loc[-1], str)
    if kind in ("missing", "blank") or sent_null:  # a required field sent as null is missing too
        return f"{prefix}Please enter {name}"
    if kind == "rule":
        # A model-level rule (e.g. an expired card) has no field: its message is a whole sentence. (A field
        # may be named `body` too: send's HTML body.)
        model_level = field == "body" and loc[-1:] != ("body",)
        return f"{prefix}{problem['msg']}" if model_level else f"{prefix}{name} {problem['msg']}"
    if kind == "literal_error":
        expected = context.get("expected", "").replace(chr(39), "")
        return f"{prefix}{name} must be {'one of ' + expected if ',' in expected else expected}"
    if kind in ("too_short", "too_long"):
        return f"{prefix}{name} {_length_rule(kind, context, field)}"
    if kind == "string_too_short":
        return f"{prefix}{name} must be at least {context.get('min_length')} characters"
    if kind == "string_too_long":
        return f"{prefix}{name} must be at most {context.get('max_length')} characters"
    if kind in ("int_parsing", "int_from_float", "int_type"):
        return f"{prefix}{name} must be a whole number"
    if kind in ("greater_than_equal", "less_than_equal"):
        bound = context.get("ge", context.get("le"))
        return f"{prefix}{name} must be {'at least' if kind == 'greater_than_equal' else 'at most'} {bound}"
    if kind == "string_pattern_mismatch":
        return f"{prefix}{name} has an invalid format"
    if kind in ("string_type", "list_type", "dict_type", "model_type", "model_attributes_type"):
        expected = {"string_type": "text", "list_type": "a list"}.get(kind, "an object")
        if loc and isinstance(loc[-1], int):  # an element of a list: `Line 2 must be an object`
            return f"{prefix.removesuffix(': ')} must be {expected}"
        return f"{prefix}{name} must be {expected}"
    return f"{prefix}{name} is invalid"


def _length_rule(kind: str, context: Mapping[str, object], field: str) -> str:
    """`Lines must hold at least 1 line`: the list's elements are named after the list."""
    short = kind == "too_short"
    number = context.get("min_length" if short else "max_length")
    items = field.replace("_", " ") if field.endswith("s") else "entries"
    item = items.removesuffix("s") if field.endswith("s") else "entry"
    return f"must hold {'at least' if short else 'at most'} {number} {item if number == 1 else items}"


MOST_ERRORS = 50  # one answer names at most this many problems: a body of 100,000 bad items is one answer


def describe_all(error: ValidationError) -> list[str]:
    """Every problem of a body, in words, each once, at most MOST_ERRORS of them."""
    messages = list(dict.fromkeys(message for problem in error.errors() for message in describe(problem)))
    if len(messages) <= MOST_ERRORS:
        return messages
    return [*messages[:MOST_ERRORS], f"… and {len(messages) - MOST_ERRORS:,} more problems"]


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def end_with_the_master() -> None:
    """In a uvicorn worker process, asks Linux for SIGTERM when the master dies, however it dies. Without it a
    SIGKILLed master (an OOM kill, a `kill -9`) left its workers serving the shared socket, unsupervised, and
    the next start failed with "Address already in use". SIGTERM is what the master itself sends its workers
    on a stop: the worker closes the socket at once and finishes the requests it is answering, which the
    read timeouts bound. uvicorn starts workers with multiprocessing's spawn, which imports this module (the
    `--http` protocol) before serving; a single process (`--workers 1`) has no master and is left alone."""
    master = multiprocessing.parent_process()
    if master is None or master.pid is None or sys.platform != "linux":
        return
    die_with_parent(ctypes.CDLL(None, use_errno=True), signal.SIGTERM, master.pid)


def die_with_parent(libc: ctypes.CDLL, signum: int, parent: int) -> None:
    """Asks Linux for `signum` when the parent process `parent` ends, however it ends (the request survives exec,
    so `lineup run` gives it its children between fork and exec with a libc it loaded before the fork)."""
    libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
    # The parent may have died before the call: then no signal would ever come.
    if os.getppid() != parent:
        os.kill(os.getpid(), signum)


end_with_the_master()


def no_delay(transport: asyncio.Transport) -> None:
    """Turns Nagle's algorithm off. asyncio does so only for sockets whose protocol number says TCP, and the
    socket uvicorn binds for `--workers` N > 1 (what LINEUP_API_PROCESSES sets) says 0: without this, every
    answer on a kept-alive connection waited ~40 ms for the client's delayed ACK (23 answers a second for one
    client, 722 for 32 connections, against 3,909 from one process)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class ReadTimeouts(H11Protocol):
    # None: the environment's settings (uvicorn imports the class by name); tests bind their own with `bound`.
    settings: ClassVar[Settings | None] = None

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, object],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        settings = self.settings or get_settings()
        self.header_timeout = settings.api.header_timeout_seconds
        # uvicorn's own keep-alive timer, armed after each response; its setting takes whole seconds only.
        self.timeout_keep_alive = settings.api.keep_alive_seconds  # type: ignore[assignment]
        self._head_timer: asyncio.TimerHandle | None = None

    @classmethod
    def bound(cls, settings: Settings) -> type[ReadTimeouts]:
        """The protocol with `settings`' timeouts rather than the environment's."""
        return type(cls.__name__, (cls,), {"settings": settings})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        no_delay(transport)
        self._start_head_timer()  # a connection that never says anything is a slow head too

    def data_received(self, data: bytes) -> None:
        # The first byte of a new request starts its head's clock (after a keep-alive wait, say).
        if self._head_timer is None and self.conn.their_state is h11.IDLE:
            self._start_head_timer()
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the head is complete: the body has its own bound
            self._stop_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _start_head_timer(self) -> None:
        self._stop_head_timer()
        self._head_timer = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        """No answer: a client this slow to ask is either gone or holding the connection on purpose."""
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()
