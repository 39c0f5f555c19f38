"""The one dispatcher: every action group's path is served by it. It reads the body once, checks the token and
the caller (decisions.md's order), validates the body once against the action's request model, calls the
action's handler with a typed Context and renders its typed answer. The request's one transaction holds the
token read, the handler's writes, the token claim, the next token and the audit row, and commits once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from api.catalog import CATALOG
from api.edge import BodyTooLarge, BodyTooSlow
from api.envelope import refusal, render, status_of
from api.facts import Facts, facts_of
from api.json_body import BodyProblem, JsonObject, parse_off_loop
from api.problems import describe_all
from dispatch.access import (
    agent_name,
    check_agent,
    check_agent_password,
    check_role,
    check_source,
    named_agent_refusal,
)
from dispatch.actions import Action
from dispatch.context import Caller, Context, Reply, Resources, TokenChain
from models.envelope import Envelope, MsgCode
from models.errors import LineupError, TokenRefused, refuse
from models.requests.base import ActionRequest
from persistence import audit
from persistence.auth import tokens
from persistence.transaction import Transaction
from persistence.uow import BeforeCommit


class GroupEndpoint:
    """One group's path, as a plain ASGI app: the dispatcher answers every outcome itself, and an unexpected
    failure goes on to the edge's 500 envelope, so Starlette's per-route exception wrapper has nothing to add."""

    def __init__(self, group: str) -> None:
        self.group = group

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await Dispatch(Request(scope, receive), self.group).run()
        await response(scope, receive, send)


def endpoint(group: str) -> GroupEndpoint:
    """The route of one group's path."""
    return GroupEndpoint(group)


class Dispatch:
    def __init__(self, request: Request, group: str) -> None:
        self.request, self.group = request, group
        self.resources: Resources = request.app.state.resources
        self.facts: Facts = facts_of(request)
        self.large = False  # the body is past the general limit: only an action declared large_body takes it

    async def run(self) -> Response:
        settings = self.resources.settings.api
        try:
            raw = await read_body(
                self.request,
                settings.max_body_bytes,
                settings.body_limit(self.request.url.path),
                before_more=self.token_first,
            )
            payload = await parse_object(self.request, raw, settings.max_json_members)
        except TokenRefused as refused:  # a large body's token, checked before more than the general limit
            self.facts.token_failure = refused.reason
            return await self.answer(refusal(refused), refused.rest_status)
        except LineupError as error:  # before the token check: no token is claimed, none is issued
            return await self.answer(refusal(error), error.rest_status)
        self.large = len(raw) > settings.max_body_bytes
        self.facts.external_transaction_id = transaction_id(payload)
        username = agent_name(payload.get("agent_id"))
        # A name no agent could have is looked up as none (the database could not even take it), and refused
        # in its turn, after the action and the source.
        lookup = None if named_agent_refusal(username) else username
        try:
            presented = await tokens.present(
                await self.facts.uow.transaction_now(), self.request.headers.get("token"), username=lookup
            )
        except TokenRefused as refused:
            self.facts.token_failure = refused.reason
            return await self.answer(refusal(refused), refused.rest_status)
        chain = TokenChain(fresh=tokens.new_token())
        self.facts.fresh_token, self.facts.vendor_id = chain.fresh, presented.owner.vendor_id
        self.facts.api_user_id = presented.owner.api_user_id
        self.facts.uow.before_commit(claim(presented, chain, self.resources.settings.auth.token_ttl_seconds))
        try:
            envelope, rest_status = await self.serve(payload, presented, username, chain), None
        except LineupError as error:
            await self.facts.uow.rollback()  # the handler's writes go; the token claim stays due
            envelope, rest_status = refusal(error), error.rest_status
        except Exception:
            await self.facts.uow.rollback()
            await self.facts.uow.commit()  # an unexpected failure still used the token (the edge answers 500)
            raise
        if chain.ended:
            self.facts.fresh_token = None
            envelope = Envelope(envelope.msg_code, envelope.msg, envelope.errors, "", data=envelope.data)
        return await self.answer(envelope, rest_status)

    async def serve(
        self, payload: JsonObject, presented: tokens.Presented, username: str | None, chain: TokenChain
    ) -> Envelope:
        """The checks after the token, then the operation."""
        name = payload.get("action")
        action = CATALOG.resolve(self.group, name)
        assert isinstance(name, str)
        self.facts.action = name
        settings = self.resources.settings
        if self.large and not action.large_body:
            raise refuse(str(BodyTooLarge(settings.api.max_body_bytes)), rest_status=413)
        check_source(action, payload.get("source"), settings)
        if (refused := named_agent_refusal(username)) is not None:
            raise refused
        agent = presented.agent
        needs_password = check_agent(action, agent, username, presented.owner.vendor_id)
        self.facts.agent = agent.username if agent else None
        if needs_password:
            assert agent is not None
            await check_agent_password(self.facts.uow, settings, agent, payload.get("agent_password"))
        check_role(action, agent)
        # A body past the general limit (three proof images) is validated off the event loop, as it was parsed.
        body = (
            await asyncio.to_thread(validated, action.request, payload)
            if self.large
            else validated(action.request, payload)
        )
        owner = presented.owner
        who = (owner.vendor_id, presented.vendor_code, owner.api_user_id, owner.login_log_id)
        caller = Caller(*who, agent, name, presented.require_payment)
        ctx = Context(caller, self.facts.uow, self.resources, self.facts.request_id, chain)
        return success(action, await action.handler(body, ctx))

    async def token_first(self) -> None:
        """Before a body is read past the general limit: its token must be one that works (TokenRefused if
        not), so nobody who holds none makes the API read, let alone parse, megabytes. Read only: the claim
        stays with the request's commit, as for any body."""
        connection = await self.facts.uow.transaction_now()
        await tokens.present(connection, self.request.headers.get("token"), username=None)

    async def answer(self, envelope: Envelope, rest_status: int | None) -> Response:
        """Commits the request's work with its audit row (and the token claim), then renders the answer; a claim
        lost to a request that presented the same token turns the answer into its token error."""
        settings = self.resources.settings.api
        try:
            await self.commit_with_audit(envelope.msg_code, status_of(settings, envelope.msg_code, rest_status))
        except TokenRefused as refused:
            self.facts.token_failure, self.facts.fresh_token = refused.reason, None
            envelope, rest_status = refusal(refused), refused.rest_status
            await self.commit_with_audit(envelope.msg_code, status_of(settings, envelope.msg_code, rest_status))
        return render(settings, self.facts, envelope, rest_status=rest_status)

    async def commit_with_audit(self, code: MsgCode, status: int) -> None:
        facts = self.facts
        facts.msg_code = code.value
        row = audit.AuditFacts(
            request_id=facts.request_id,
            path=self.request.url.path,
            action=facts.action,
            vendor_id=facts.vendor_id,
            api_user_id=facts.api_user_id,
            agent_username=facts.agent,
            msg_code=code.value,
            http_status=status,
            duration_ms=int((time.perf_counter() - facts.started) * 1000),
        )

        facts.uow.before_commit(lambda transaction: audit.write(transaction, row))
        await facts.uow.commit()
        facts.audited = True


def claim(presented: tokens.Presented, chain: TokenChain, ttl_seconds: int) -> BeforeCommit:
    """What the committing transaction must do: claim the presented token and store the answer's token (unless
    the request ended the session)."""

    async def run(transaction: Transaction) -> None:
        if chain.ended:  # the request ended the session: its tokens, the presented one included, are gone
            return
        await tokens.claim(transaction, presented.hashed)
        await tokens.store(transaction, chain.fresh, presented.owner, ttl_seconds)

    return run


async def read_object(request: Request, max_members: int) -> JsonObject:
    """The body, within the general limit the edge holds it to, as a JSON object (or a RESTAPI110 saying why
    it is not one)."""
    return await parse_object(request, await read_body(request, None, None), max_members)


Check = Callable[[], Awaitable[None]]


async def read_body(
    request: Request, limit: int | None, extended: int | None, *, before_more: Check | None = None
) -> bytes:
    """The raw body. With `limit` and `extended`: past `limit` bytes (declared or received), `before_more` runs
    first (the token check) and reading goes on up to `extended`; the edge refuses anything beyond that."""
    allowed = limit if limit is not None and extended is not None and extended > limit else None
    declared = request.headers.get("content-length", "")
    try:
        if allowed is not None and declared.isdigit() and int(declared) > allowed:
            if before_more is not None:
                await before_more()
            allowed = None
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if allowed is not None and size > allowed:
                if before_more is not None:
                    await before_more()
                allowed = None
            chunks.append(chunk)
    except (BodyTooLarge, BodyTooSlow) as problem:
        raise refuse(str(problem), rest_status=problem.status) from None
    return b"".join(chunks)


async def parse_object(request: Request, raw: bytes, max_members: int) -> JsonObject:
    """The body parsed once as a JSON object (api.json_body: a large one off the event loop, an object or array
    with more than `max_members` refused as the scan meets it), or a RESTAPI110 saying why it is not one."""
    if not raw.strip():
        raise refuse("Request body is empty; send a JSON object")
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise refuse("Content-Type must be application/json", rest_status=415)
    try:
        return await parse_off_loop(raw, max_members)
    except BodyProblem as problem:
        raise refuse(str(problem)) from None


def transaction_id(payload: JsonObject) -> str | None:
    value = payload.get("external_transaction_id")
    if isinstance(value, str) and value.isascii() and value.isalnum() and len(value) <= 64:
        return value
    return None


def validated(model: type[ActionRequest], payload: JsonObject) -> ActionRequest:
    try:
        return model.model_validate(payload)
    except ValidationError as problems:
        raise refuse(*describe_all(problems)) from None


def success(action: Action, result: object) -> Envelope:
    """The handler's answer: its own message when it replied with one, its data by the declared answer model."""
    msg, data = (result.msg, result.data) if isinstance(result, Reply) else (action.msg, result)
    if action.answer is None:
        return Envelope(MsgCode.SUCCESS, msg)
    return Envelope(MsgCode.SUCCESS, msg, data=action.dump(data))
