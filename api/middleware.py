"""ASGI middleware: per-request context (id, log, audit, the last-resort 500 envelope), the body-size
limit, enforced while the body streams in, and the body's read deadline."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.envelope import failure, render
from models.settings import Settings
from observability import metrics
from persistence import audit

log = logging.getLogger("lineup.access")
_SLASHES = re.compile(r"/{2,}")


class HttpMiddleware:
    """ASGI middleware over HTTP requests (`handle`); every other scope, the lifespan's, passes through."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


class BodyTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"Request body exceeds the limit of {limit} bytes")


class BodyLimit(HttpMiddleware):
    """Refuses a body over the limit from Content-Length, or as soon as the stream passes it."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.settings.api.body_limit(scope["path"])
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            response = render(self.settings, scope["state"], failure("Error occurred", str(BodyTooLarge(limit))),
                              rest_status=413)  # fmt: skip
            await response(scope, receive, send)
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # Reaches the route as the cause of its body-parsing error (see api.errors).
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, counting_receive, send)


class BodyTooSlow(HTTPException):
    """Raised from `receive`: FastAPI passes an HTTPException from reading the body on to api.errors, which
    answers it as RESTAPI110 (408 in `rest` mode)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"The request body was not received within {seconds:g} seconds")


class BodyDeadline(HttpMiddleware):
    """The whole body must arrive within LINEUP_BODY_TIMEOUT_SECONDS of the request head, however it trickles
    in; a late one is answered (if the app still can) and its connection closed, since the rest of the body
    would still be on its way."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        seconds = self.settings.api.body_timeout_seconds
        deadline, body_done, expired = loop.time() + seconds, False, False

        async def bounded_receive() -> Message:
            nonlocal body_done, expired
            if body_done:  # after the whole body, a receive waits for the client to go away: not bounded
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                expired = True
                raise BodyTooSlow(seconds) from None
            body_done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        async def closing_send(message: Message) -> None:
            if expired and message["type"] == "http.response.start":
                message.setdefault("headers", []).append((b"connection", b"close"))
            await send(message)

        await self.app(scope, bounded_receive, closing_send)


class RequestContext(HttpMiddleware):
    """A request id and a unit of work per call, a JSON access-log line, an audit row for operation
    calls (in the request's own session), and the 500 envelope for anything no handler caught."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Channels of the original service post to `//authenticate`, some to `/plan/`: one route each, never
        # a redirect (a redirect is not the envelope).
        if "//" in scope["path"] or (scope["path"].endswith("/") and scope["path"] != "/"):
            scope["path"] = _SLASHES.sub("/", scope["path"]).rstrip("/") or "/"
        request_id = uuid.uuid4().hex
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id
        state["uow"] = scope["app"].state.resources.db.unit_of_work()
        started, status, sent = time.perf_counter(), 500, False

        async def with_request_id(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status, sent = message["status"], True
                message.setdefault("headers", []).append((b"x-request-id", request_id.encode()))
            await send(message)

        try:
            await self.app(scope, receive, with_request_id)
        except Exception:
            log.exception("unexpected failure", extra={"request_id": request_id})
            if not sent:
                envelope = failure("Error occurred", f"Unexpected error; reference {request_id}")
                await render(self.settings, state, envelope, rest_status=500)(scope, receive, with_request_id)
        finally:
            elapsed = time.perf_counter() - started
            _count(state, elapsed)
            try:
                await _record(scope, state, status, int(elapsed * 1000))
            finally:
                await state["uow"].close()


def _count(state: dict[str, Any], seconds: float) -> None:
    """Calls that answered an envelope (operations and their refusals; not probes, docs or scrapes)."""
    if msg_code := state.get("msg_code"):
        metrics.request_answered(state.get("action"), msg_code, seconds)
    if reason := state.get("token_failure"):
        metrics.token_refused(reason)


async def _record(scope: Scope, state: dict[str, Any], status: int, duration_ms: int) -> None:
    fields = {
        "request_id": state["request_id"],
        "method": scope["method"],
        "path": scope["path"],
        "action": state.get("action"),
        "agent": state.get("agent"),
        "vendor_id": state.get("vendor_id"),
        "api_user_id": state.get("api_user_id"),
        "msg_code": state.get("msg_code"),
        "status": status,
        "duration_ms": duration_ms,
    }
    log.info("request", extra={"fields": fields})
    if not (state.get("msg_code") and scope["method"] == "POST") or state.get("database_down"):
        return
    facts = audit.AuditFacts(
        request_id=state["request_id"], path=scope["path"], action=state.get("action"),
        vendor_id=state.get("vendor_id"), api_user_id=state.get("api_user_id"), agent_username=state.get("agent"),
        msg_code=state["msg_code"],
        http_status=status, duration_ms=duration_ms,
    )  # fmt: skip
    try:
        await audit.record(state["uow"], facts)
    except Exception:  # the answer is already sent; a lost audit row must not become a 500
        log.exception("audit write failed", extra={"request_id": state["request_id"]})
