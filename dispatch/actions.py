"""One declaration per action: its group, name and aliases, request and answer models, sources, role and handler,
said once with `@action(...)` on the handler. The catalog (api.catalog), the dispatcher (api.dispatch), the
OpenAPI document (api.openapi) and the tests' answer checks all read it; nothing else lists actions.

A handler is `async def <action name>(*, body: <request model>, ctx: Context) -> <answer>`, where the answer is
the `data` model (or `None`: the answer carries no `data`), or `Reply[<data model>]` when its message is its own."""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Never, Protocol, TypeVar, cast, get_args, get_origin, get_type_hints

from pydantic import JsonValue, TypeAdapter

from dispatch.context import Context, Reply
from models.requests.base import ActionRequest

CORE_SOURCES = frozenset({"API", "TABLET", "WEBSITE"})
WEB_SOURCES = frozenset({"API", "WEBSITE"})
VOICE_SOURCES = CORE_SOURCES | {"IVR"}
ALL_SOURCES = VOICE_SOURCES | {"CSR"}
PORTAL_SOURCE = "ENROLLMENT_PORTAL"  # the samples' source, accepted on every operation (decisions.md)

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

    def allows(self, source: str, extra: frozenset[str]) -> bool:
        return source in self.sources or source == PORTAL_SOURCE or source in extra


def action(
    group: str,
    *more_groups: str,
    aliases: tuple[str, ...] = (),
    sources: frozenset[str] = CORE_SOURCES,
    source_required: bool = True,
    agent_required: bool = True,
    role: str | None = None,
    interface: bool = False,
    large_body: bool = False,
    msg: str = "Success",
    example: object = None,
) -> Callable[[H], H]:
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
            aliases=aliases,
            sources=sources,
            source_required=source_required,
            agent_required=agent_required,
            role=role,
            interface=interface,
            large_body=large_body,
            msg=msg,
            example=example,
            summary=(handler.__doc__ or "").strip().split("\n\n")[0],
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
