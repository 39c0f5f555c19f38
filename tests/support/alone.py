"""One workflow alone on the time-skipping server (the `time_skipping` fixture): a worker on a task queue of
its own, stand-in activities registered under the real activity names, and a record of what each was called
with and when, on the server's skipped clock."""

from __future__ import annotations

import inspect
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from temporalio import activity
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker


def fresh_queue(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


def worker(env: WorkflowEnvironment, queue: str, *, workflows: list[type], activities: list[Any]) -> Worker:
    return Worker(env.client, task_queue=queue, workflows=workflows, activities=activities)


@dataclass
class Call:
    name: str
    args: tuple[Any, ...]
    at: datetime  # the server's skipped clock


@dataclass
class Calls:
    """What the stand-ins were called with, in order."""

    env: WorkflowEnvironment
    seen: list[Call] = field(default_factory=list)

    async def note(self, name: str, *args: Any) -> None:
        self.seen.append(Call(name, args, await self.env.get_current_time()))

    def of(self, name: str) -> list[tuple[Any, ...]]:
        return [call.args for call in self.seen if call.name == name]

    def names(self) -> list[str]:
        return [call.name for call in self.seen]

    def span(self, name: str) -> timedelta:
        """Skipped time from the first call of `name` to its last."""
        times = [call.at for call in self.seen if call.name == name]
        return times[-1] - times[0]


def stand_in(
    name: str, calls: Calls, answer: Callable[..., Awaitable[Any]], *, takes: list[type], gives: type | None
) -> Callable[..., Awaitable[Any]]:
    """An activity registered as `name`, taking arguments of the types `takes` (the payloads are decoded into
    them as the real activity's are), noting each call, then answering with `answer(*args)` (which may raise)."""

    async def run(*args: Any) -> Any:
        await calls.note(name, *args)
        return await answer(*args)

    # A real signature, so that the SDK decodes each payload into its type as it does the real activity's.
    params = [f"arg{index}" for index in range(len(takes))]
    run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=t)
            for p, t in zip(params, takes, strict=True)
        ],
        return_annotation=gives,
    )
    run.__annotations__ = {**dict(zip(params, takes, strict=True)), "return": gives}
    run.__name__ = run.__qualname__ = name
    return activity.defn(name=name)(run)
