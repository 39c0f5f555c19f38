"""ASGI middleware: per-request context (id, log, audit, the last-resort 500 envelope) and the body-size
limit, enforced while the body streams in."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.envelope import failure, render
from models.settings import Settings

log = logging.getLogger("lineup.access")


class BodyTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"Request body exceeds the limit of {limit} bytes")


class BodyLimit:
    """Refuses a body over the limit from Content-Length, or as soon as the stream passes it."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.settings.body_limit(scope["path"])
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


class RequestContext:
    """A request id per call, a JSON access-log line, an audit row for operation calls, and the 500
    envelope for anything no handler caught."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id
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
            duration_ms = int((time.perf_counter() - started) * 1000)
            await _record(scope, state, status, duration_ms)


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
    if state.get("msg_code") and scope["method"] == "POST":
        await scope["app"].state.audit.record(fields)
