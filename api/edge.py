"""The one ASGI middleware every HTTP request passes: its id and Facts (with its unit of work), the body's limits
(its size, enforced as it streams in, and its read deadline), the access-log line and the metrics, the audit row
of a call the dispatcher did not get to write one for, and the last-resort 500 envelope."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.envelope import failure, render
from api.facts import KEY, Facts
from models.settings import Settings
from observability import metrics
from persistence import audit
from persistence.engine import Database
from persistence.uow import UnitOfWork

log = logging.getLogger("lineup.access")
_SLASHES = re.compile(r"/{2,}")


class BodyRefused(Exception):
    """Raised from `receive`: the dispatcher answers it as RESTAPI110 (its status in `rest` mode)."""

    status = 400


class BodyTooLarge(BodyRefused):
    status = 413

    def __init__(self, limit: int) -> None:
        super().__init__(f"Request body exceeds the limit of {limit} bytes")


class BodyTooSlow(BodyRefused):
    status = 408

    def __init__(self, seconds: float) -> None:
        super().__init__(f"The request body was not received within {seconds:g} seconds")


class Edge:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.settings = app, settings

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
        limit = api.body_limit(scope["path"])
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await render(api, facts, failure("Error occurred", str(BodyTooLarge(limit))), rest_status=413)(
                scope, receive, send
            )
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
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
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

        try:
            await self.app(scope, bounded_receive, marked_send)
        except Exception:
            log.exception("unexpected failure", extra={"request_id": facts.request_id})
            if not sent:
                envelope = failure("Error occurred", f"Unexpected error; reference {facts.request_id}")
                await render(api, facts, envelope, rest_status=500)(scope, receive, marked_send)

    async def _record(self, scope: Scope, facts: Facts) -> None:
        """The access-log line and the metrics of every request; the audit row of a call answered with the
        envelope before the dispatcher wrote one (a missing module, a body refused)."""
        elapsed = time.perf_counter() - facts.started
        if facts.msg_code:  # calls that answered an envelope (not probes, docs or scrapes)
            metrics.request_answered(facts.action, facts.msg_code, elapsed, outage=facts.outage)
        if facts.token_failure:
            metrics.token_refused(facts.token_failure)
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
        row = audit.AuditFacts(
            request_id=facts.request_id,
            path=scope["path"],
            action=facts.action,
            vendor_id=facts.vendor_id,
            api_user_id=facts.api_user_id,
            agent_username=facts.agent,
            msg_code=facts.msg_code,
            http_status=facts.status or 500,
            duration_ms=int(elapsed * 1000),
        )
        try:
            await audit.record(facts.uow, row)
        except Exception:
            log.exception("audit write failed", extra={"request_id": facts.request_id})
