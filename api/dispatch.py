"""The one dispatcher and the action declaration. An action is declared once, with `@action(...)` on its handler
(its request and answer models read from the handler's annotations); the catalog (api.catalog), the OpenAPI document
and the tests' answer checks read the declarations. Every group's path is a GroupEndpoint: it reads the body once,
checks the token and the caller in decisions.md's order, validates the body once, calls the handler with a typed
Context and renders its typed answer. One transaction holds the token read, the handler's writes, the token claim,
the next token and the audit row."""

from __future__ import annotations

import asyncio
import types
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import timedelta
from functools import cached_property, partial
from types import ModuleType
from typing import Generic, Never, Protocol, TypedDict, TypeVar, Unpack, cast, get_args, get_origin, get_type_hints

from pydantic import JsonValue, TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.types import MethodAsyncSingleParam, ParamType, ReturnType, SelfType

from adapters.payments import PaymentGateway
from api.access import (
    CORE_SOURCES,
    LoginGates,
    agent_name,
    check_agent,
    check_agent_password,
    check_role,
    check_source,
    named_agent_refusal,
    own_agent,
)
from api.edge import (
    OUTAGES,
    BodyProblem,
    BodyTooLarge,
    Facts,
    JsonObject,
    describe_all,
    facts_of,
    on_database_error,
    parse,
    refusal,
    render,
    status_of,
)
from api.temporal import TemporalLink, outside_system
from models import auth, events
from models.auth import AgentRef
from models.crypto import FieldCipher
from models.db import Database, Session, UnitOfWork
from models.envelope import Envelope, LineupError, MsgCode, TokenRefused, refuse
from models.settings import Settings
from models.support import SnapshotCache
from models.types import PLAIN_TEXT, ActionRequest, plain_text


@dataclass(frozen=True)
class Caller:
    """The token's vendor and API user, and the acting agent: the one named, or the token's own when its API user
    is an agent's (decisions.md, "Who calls")."""

    vendor_id: int
    vendor_code: str
    api_user_id: int
    login_log_id: int | None
    agent: AgentRef | None
    action: str
    require_payment: bool = False  # the vendor's: a line activates only once a settled payment covers its plan

    @property
    def agent_username(self) -> str | None:
        return self.agent.username if self.agent else None

    @property
    def actor(self) -> str:
        """Who acts, as the event log names them: the agent, or else the channel's API user."""
        return events.agent(self.agent.username) if self.agent else events.api_user(self.api_user_id)

    def request_key(self, external_transaction_id: str | None) -> str | None:
        """Unique per vendor and action; None when the channel sent no external_transaction_id."""
        if not external_transaction_id:
            return None
        return f"{self.vendor_id}:{self.action}:{external_transaction_id}"


@dataclass(frozen=True)
class Resources:
    """Built once per process (the API's lifespan) and shared by every request."""

    settings: Settings
    db: Database
    cipher: FieldCipher
    temporal: TemporalLink
    payments: PaymentGateway
    gates: LoginGates  # the rates and the verification queue of the doors that need no token
    scrapes: SnapshotCache  # /metrics' database snapshot, reused for LINEUP_METRICS_CACHE_SECONDS


@dataclass
class TokenChain:
    """The request's place in its session's token chain: the token its answer carries, stored when the request
    commits, unless the request ended the session (logout)."""

    fresh: str
    ended: bool = False

    def end(self) -> None:
        """The answer's token is not stored: the session ends with this request."""
        self.ended = True


@dataclass(frozen=True)
class Context:
    """One operation call. Anything that waits on another system goes through `outside` or `temporal_client`,
    which end the request's open transaction first: no connection and no lock is held while it waits."""

    caller: Caller
    uow: UnitOfWork
    resources: Resources
    request_id: str
    chain: TokenChain | None = None  # None outside the API's token chain (the console acts as an agent)

    @property
    def settings(self) -> Settings:
        return self.resources.settings

    @property
    def cipher(self) -> FieldCipher:
        return self.resources.cipher

    @property
    def fresh_token(self) -> str | None:
        """The token this call's answer carries."""
        return self.chain.fresh if self.chain else None

    @property
    def task_queue(self) -> str:
        return self.settings.temporal.task_queue

    async def temporal_client(self) -> Client:
        """The Temporal client, the request's transaction released (unavailable: the upstream-down refusal)."""
        await self.uow.commit_before_wait()
        return self.resources.temporal.client()

    @asynccontextmanager
    async def outside(self, system: str, *, within: float | None = None) -> AsyncIterator[None]:
        """A call to `system` answered within `within` seconds (default: the Temporal RPC deadline), its
        refusal or outage turned into the envelope decisions.md gives; the request's transaction released."""
        await self.uow.commit_before_wait()
        async with outside_system(system, within=within or self.settings.temporal.rpc_seconds):
            yield

    def lookup_seconds(self) -> float:
        """How long the API waits for a lookup: its budget, and a Temporal round trip to start and answer it."""
        return self.settings.systems.lookup_budget_seconds + self.settings.temporal.rpc_seconds


T = TypeVar("T")


@dataclass(frozen=True)
class Reply(Generic[T]):
    """An operation's answer when its message is its own, not "Success"."""

    msg: str
    data: T


B = TypeVar("B", bound=ActionRequest, contravariant=True)


class Handler(Protocol[B]):
    """An action's handler: its request model, the call's context, its answer."""

    __name__: str  # the action's name

    def __call__(self, *, body: B, ctx: Context) -> Awaitable[object]: ...


# What the dispatcher calls: any declared action's handler, given a body its request model validated.
Invoke = Callable[[ActionRequest, Context], Awaitable[object]]
H = TypeVar("H", bound=Handler[Never])
DECLARED = "__lineup_action__"


@dataclass(frozen=True, eq=False)  # one declaration is one action: compared and hashed by identity
class Action:
    """An action as the dispatcher, the catalog and the OpenAPI document see it."""

    name: str
    groups: tuple[str, ...]  # the paths it is posted to (most have one)
    request: type[ActionRequest]
    answer: object  # the type of `data`; None: the answer carries no `data`
    handler: Invoke
    aliases: tuple[str, ...] = ()
    sources: frozenset[str] = CORE_SOURCES
    source_required: bool = True
    agent_required: bool = True
    role: str | None = None
    # One of the interface's 13 operations (interface.md, section 4); every other action is an extension that
    # decisions.md adds (docs/channels.md marks them *ext*).
    interface: bool = False
    # May carry a body up to LINEUP_MAX_AUTH_BODY_BYTES (images), read past the general limit only once the
    # token was accepted; every other action's body stays within LINEUP_MAX_BODY_BYTES.
    large_body: bool = False
    # The handler only reads: on SQLite its request takes the write lock only to commit the token's claim, the next
    # token and the audit row (models.db.UnitOfWork.reads); a write in it fails (the connection is query-only).
    reads_only: bool = False
    msg: str = "Success"  # the success message, unless the handler replies with its own
    example: object = None  # an example of `data`, shown in the OpenAPI document and checked against `answer`
    summary: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @cached_property
    def adapter(self) -> TypeAdapter[object]:
        """Validates and serializes `data` as the declared answer model says (built once per action)."""
        return TypeAdapter(cast(type[object], self.answer))  # the annotation a handler returns, list[…] or a model

    def dump(self, data: object) -> JsonValue:
        """`data` as JSON values, by the declared model (members it leaves out, left out)."""
        dumped: JsonValue = self.adapter.dump_python(data, mode="json")
        return dumped


class Declaration(TypedDict, total=False):
    """What `@action` may say beside the group(s); what it leaves out takes Action's default."""

    aliases: tuple[str, ...]
    sources: frozenset[str]
    source_required: bool
    agent_required: bool
    role: str | None
    interface: bool
    large_body: bool
    reads_only: bool
    msg: str
    example: object


def action(group: str, *more_groups: str, **declaration: Unpack[Declaration]) -> Callable[[H], H]:
    """Declares the decorated handler as the action of its own name (the handler itself is left as it is)."""

    def declare(handler: H) -> H:
        hints = get_type_hints(handler)
        request = hints["body"]
        assert isinstance(request, type) and issubclass(request, ActionRequest), handler.__name__
        declared = Action(
            name=handler.__name__,
            groups=(group, *more_groups),
            request=request,
            answer=data_type(hints["return"]),
            handler=_invoker(handler, request),
            summary=(handler.__doc__ or "").strip().split("\n\n")[0],
            **declaration,
        )
        setattr(handler, DECLARED, declared)
        return handler

    return declare


def _invoker(handler: Handler[B], request: type[ActionRequest]) -> Invoke:
    async def invoke(body: ActionRequest, ctx: Context) -> object:
        assert isinstance(body, request)  # the dispatcher validated it against this very model
        return await handler(body=cast(B, body), ctx=ctx)

    return invoke


def data_type(returned: object) -> object:
    """The `data` type a handler's return annotation says: Reply[X] is X, None is no data."""
    if get_origin(returned) is Reply:
        (returned,) = get_args(returned)
    return None if returned is None or returned is types.NoneType else returned


def declared_in(module: types.ModuleType) -> Iterator[Action]:
    """The actions a module declares (its own handlers, not those it imports)."""
    for value in vars(module).values():
        found = getattr(value, DECLARED, None)
        if isinstance(found, Action) and getattr(value, "__module__", None) == module.__name__:
            yield found


@dataclass(frozen=True)
class Catalog:
    actions: tuple[Action, ...]
    by_name: dict[str, Action] = field(default_factory=dict)  # every name an action answers to, aliases included

    @classmethod
    def of(cls, modules: tuple[ModuleType, ...]) -> Catalog:
        actions = tuple(found for module in modules for found in declared_in(module))
        by_name: dict[str, Action] = {}
        for found in actions:
            for name in found.names:
                assert name not in by_name, f"{name} is declared twice"
                by_name[name] = found
        return cls(actions, by_name)

    @property
    def groups(self) -> tuple[str, ...]:
        """Every path an action is posted to, in declaration order."""
        return tuple(dict.fromkeys(group for found in self.actions for group in found.groups))

    def in_group(self, group: str) -> tuple[Action, ...]:
        return tuple(found for found in self.actions if group in found.groups)

    def reads_only(self, group: str, action: object) -> bool:
        """Whether the action a body names in a group is declared `reads_only` (False for any it names wrongly:
        `resolve` refuses those, after the token)."""
        found = self.by_name.get(action) if isinstance(action, str) else None
        return found is not None and found.reads_only and group in found.groups

    def resolve(self, group: str, action: object) -> Action:
        """The action a body names in a group: RESTAPI102 when it names none, RESTAPI106 when it names no action,
        RESTAPI108 when the action lives in another group."""
        if not isinstance(action, str) or not action.strip():
            raise LineupError(MsgCode.ACTION_REQUIRED, "Action required")
        found = self.by_name.get(action)
        if found is None:
            raise LineupError(MsgCode.ACTION_UNKNOWN, "Action does not exist")
        if group not in found.groups:
            raise LineupError(MsgCode.WRONG_GROUP, "Invalid method")
        return found


class GroupEndpoint:
    """One group's path, as a plain ASGI app the edge calls directly (api.edge.Edge's `direct`): the dispatcher
    answers every outcome itself, a database outage is answered here as the app's handler would, and an unexpected
    failure goes on to the edge's 500 envelope. No router, no exception middleware on the way: they would only
    find this endpoint and pass its answer on."""

    def __init__(self, group: str, catalog: Catalog) -> None:
        self.group, self.catalog = group, catalog

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            response = await Dispatch(request, self.group, self.catalog).run()
        except OUTAGES as outage:  # not an outage (a bug): raised again, to the edge's 500
            response = await _database_outage(request, outage)
        await response(scope, receive, send)


_database_outage = on_database_error(lambda *_: None)  # an operation's path is never a console page


class Dispatch:
    def __init__(self, request: Request, group: str, catalog: Catalog) -> None:
        self.request, self.group, self.catalog = request, group, catalog
        self.resources: Resources = request.app.state.resources
        self.facts: Facts = facts_of(request)
        self.large = False  # the body is past the general limit: only an action declared large_body takes it
        self.plain = False  # no string of the body can hold a NUL or a lone surrogate (models.types.plain_text)
        self.owner: auth.TokenOwner | None = None  # the presented token's, once accepted
        self.chain: TokenChain | None = None
        self.next_due = False  # the answer's token is still to be stored (by store_next)
        self.closing: auth.AuditFacts | None = None  # the audit row of the commit under way, when it is the last

    async def run(self) -> Response:
        settings = self.resources.settings.api
        try:
            raw = await read_body(self.request, settings.max_body_bytes, self.facts.body_limit, self.token_first)
            payload = await parse_object(self.request, raw, settings.max_json_members)
            self.large = len(raw) > settings.max_body_bytes
            self.plain = plain_text(raw)
            self.facts.external_transaction_id = transaction_id(payload)
            username = agent_name(payload.get("agent_id"))
            # A name no agent could have is looked up as none (the database could not even take it), and refused
            # in its turn, after the action and the source.
            lookup = None if named_agent_refusal(username) else username
            token = self.request.headers.get("token")
            uow = self.facts.uow
            if self.catalog.reads_only(self.group, payload.get("action")):
                uow.reads()  # on SQLite: no write lock until the commit (UnitOfWork.reads)
            # Read and claimed at once; should the request's transaction roll back, the claim is made again in
            # the one that commits (a refused call still used its token). A request that only reads on SQLite
            # claims it as it commits, in its one write.
            session = await uow.session()
            presented = await auth.present(session, token, username=lookup, claim=session.writes)
        except LineupError as error:  # the body or the token refused: no token is claimed, none is issued
            if isinstance(error, TokenRefused):  # a large body's token is checked before the rest is read
                self.facts.token_failure = error.reason
            return await self.answer(refusal(error), error.rest_status)
        claim = partial(auth.claim, hashed=presented.hashed)
        if session.writes:
            uow.applied(claim)
        else:
            uow.before_commit(claim)
        chain = TokenChain(fresh=auth.new_token())
        self.facts.fresh_token, self.facts.vendor_id = chain.fresh, presented.owner.vendor_id
        self.facts.api_user_id = presented.owner.api_user_id
        self.owner, self.chain = presented.owner, chain
        # The next token is stored by the first commit: the request's last, with its audit row, or an earlier one
        # before an outside wait (a channel that never sees the answer has lost nothing it could have used).
        self.next_due = True
        uow.before_commit(self.store_next)
        try:
            envelope, rest_status = await self.serve(payload, presented, username, chain), None
        except LineupError as error:
            await self.facts.uow.rollback()  # the handler's writes go; the token claim stays due
            envelope, rest_status = refusal(error), error.rest_status
        except Exception:
            await self.facts.uow.rollback()
            await self.facts.uow.commit()  # an unexpected failure still used the token (the edge answers 500)
            raise
        if chain.ended:  # its tokens are gone, the presented one included: none is stored for the answer
            self.facts.fresh_token = None
            envelope = replace(envelope, token="")
        return await self.answer(envelope, rest_status)

    async def serve(
        self, payload: JsonObject, presented: auth.Presented, username: str | None, chain: TokenChain
    ) -> Envelope:
        """The checks after the token, then the operation."""
        name = payload.get("action")
        action = self.catalog.resolve(self.group, name)
        assert isinstance(name, str)
        self.facts.action = name
        settings = self.resources.settings
        if self.large and not action.large_body:
            raise BodyTooLarge(settings.api.max_body_bytes)
        check_source(payload.get("source"), action.sources, required=action.source_required, settings=settings)
        if (refused := named_agent_refusal(username)) is not None:
            raise refused
        agent = presented.agent
        if presented.bound:  # a token of an agent's own API credentials acts as that agent only
            username = own_agent(agent, username)
        needs_password = check_agent(agent, username, presented.owner.vendor_id, required=action.agent_required)
        self.facts.agent = agent.username if agent else None
        if needs_password:
            assert agent is not None
            await check_agent_password(self.facts.uow, settings, agent, payload.get("agent_password"))
        check_role(action.role, agent)
        # A body past the general limit (three proof images) is validated off the event loop, as it was parsed.
        body = (
            await asyncio.to_thread(validated, action.request, payload, plain=self.plain)
            if self.large
            else validated(action.request, payload, plain=self.plain)
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
        connection = await self.facts.uow.session()
        await auth.present(connection, self.request.headers.get("token"), username=None)

    async def answer(self, envelope: Envelope, rest_status: int | None) -> Response:
        """Commits the request's work with its audit row (and the token claim), then renders the answer; a claim
        lost to a request that presented the same token turns the answer into its token error."""
        try:
            await self.commit_with_audit(envelope.msg_code, rest_status)
        except TokenRefused as refused:
            self.facts.token_failure, self.facts.fresh_token = refused.reason, None
            envelope, rest_status = refusal(refused), refused.rest_status
            await self.commit_with_audit(envelope.msg_code, rest_status)
        return render(self.resources.settings.api, self.facts, envelope, rest_status=rest_status)

    async def commit_with_audit(self, code: MsgCode, rest_status: int | None) -> None:
        facts = self.facts
        facts.msg_code = code.value
        row = facts.audit_row(self.request.scope["path"], status_of(self.resources.settings.api, code, rest_status))
        if self.next_due:  # store_next runs in this commit: it writes the row with the token
            self.closing = row
        else:
            facts.uow.before_commit(lambda transaction: auth.write_audit(transaction, row))
        try:
            await facts.uow.commit()
        finally:
            self.next_due = False  # store_next ran in that commit, or went with its rollback
        facts.audited = True

    async def store_next(self, transaction: Session) -> None:
        """The answer's token (none when the request ended its session or lost its token), and the audit row when
        this is the request's last commit: in one statement where the database allows (auth.close_call)."""
        self.next_due, closing, self.closing = False, self.closing, None
        fresh, owner = self.facts.fresh_token, self.owner
        assert owner is not None and self.chain is not None
        if self.chain.ended:  # the request ended the session: its tokens are gone and none is issued
            fresh = None
        ttl = self.resources.settings.auth.token_ttl_seconds
        if closing is None:
            if fresh is not None:
                await auth.store(transaction, fresh, owner, ttl)
            return
        await auth.close_call(transaction, closing, token=fresh, owner=owner, ttl_seconds=ttl)


async def read_object(request: Request, max_members: int) -> JsonObject:
    """The body, within the general limit the edge holds it to, as a JSON object (or a RESTAPI110 saying why
    it is not one)."""
    return await parse_object(request, await request.body(), max_members)


async def read_body(request: Request, limit: int, extended: int, before_more: Callable[[], Awaitable[None]]) -> bytes:
    """The raw body: past `limit` bytes (declared or received), `before_more` runs first (the token check) and
    reading goes on up to `extended`; the edge refuses anything beyond that."""
    allowed = limit if extended > limit else None
    declared = request.headers.get("content-length", "")
    if allowed is not None and declared.isdigit() and int(declared) > allowed:
        await before_more()
        allowed = None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if allowed is not None and size > allowed:
            await before_more()
            allowed = None
        chunks.append(chunk)
    return b"".join(chunks)


IN_THREAD_ABOVE = 64 * 1024  # smaller bodies parse in well under a millisecond: a thread hop would cost more


async def parse_object(request: Request, raw: bytes, max_members: int) -> JsonObject:
    """The body parsed once as a JSON object (a large one off the event loop; an object or array with more than
    `max_members` refused as api.edge's scan meets it), or a RESTAPI110 saying why it is not one."""
    if not raw.strip():
        raise refuse("Request body is empty; send a JSON object")
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise refuse("Content-Type must be application/json", rest_status=415)
    try:
        if len(raw) > IN_THREAD_ABOVE:
            return await asyncio.to_thread(parse, raw, max_members)
        return parse(raw, max_members)
    except BodyProblem as problem:
        raise refuse(str(problem)) from None


def transaction_id(payload: JsonObject) -> str | None:
    value = payload.get("external_transaction_id")
    if isinstance(value, str) and value.isascii() and value.isalnum() and len(value) <= 64:
        return value
    return None


def validated(model: type[ActionRequest], payload: JsonObject, *, plain: bool = False) -> ActionRequest:
    """`plain`: the raw body can hold no NUL and no lone surrogate (models.types.plain_text): not walked for them."""
    try:
        return model.model_validate(payload, context=_PLAIN if plain else None)
    except ValidationError as problems:
        raise refuse(*describe_all(problems)) from None


_PLAIN = {PLAIN_TEXT: True}


def success(action: Action, result: object) -> Envelope:
    """The handler's answer: its own message when it replied with one, its data by the declared answer model."""
    msg, data = (result.msg, result.data) if isinstance(result, Reply) else (action.msg, result)
    if action.answer is None:
        return Envelope(MsgCode.SUCCESS, msg)
    return Envelope(MsgCode.SUCCESS, msg, data=action.dump(data))


async def run_lookup(
    ctx: Context,
    run: MethodAsyncSingleParam[SelfType, ParamType, ReturnType],
    argument: ParamType,
    *,
    workflow_id: str,
    system: str = "The carrier",
    shared: bool = False,
) -> ReturnType:
    """`shared`: the id names work a repeated request asks for again (a payment's tax registration); a run still
    going is waited for, not refused as already started."""
    client = await ctx.temporal_client()
    task_timeout = timedelta(seconds=ctx.settings.temporal.workflow_task_timeout_seconds)
    conflict = WorkflowIDConflictPolicy.USE_EXISTING if shared else WorkflowIDConflictPolicy.FAIL
    async with ctx.outside(system, within=ctx.lookup_seconds()):
        return await client.execute_workflow(
            run,
            argument,
            id=workflow_id,
            task_queue=ctx.task_queue,
            task_timeout=task_timeout,
            id_conflict_policy=conflict,
        )


def lookup_workflow_id(kind: str, request_id: str) -> str:
    """A carrier lookup of one request: `portcheck-…`, `carriers-…`, `taxestimate-…`."""
    return f"{kind}-{request_id}"
