"""Waiting on a condition instead of a fixed sleep: ask until the answer is the wanted one, within a deadline.
A fixed sleep is too short on a busy machine and too long on a quiet one; a deadline is only the bound."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio.client import Client

T = TypeVar("T")


async def eventually(
    probe: Callable[[], Awaitable[T]],
    wanted: Callable[[T], object] = bool,
    *,
    within: float = 30.0,
    every: float = 0.2,
    what: str = "the condition",
) -> T:
    """`probe()`'s first answer that `wanted` accepts, asked every `every` seconds; fails after `within` seconds
    with the last answer."""
    deadline = asyncio.get_running_loop().time() + within
    while not wanted(found := await probe()):
        assert asyncio.get_running_loop().time() < deadline, f"{what} did not hold within {within} s: {found!r}"
        await asyncio.sleep(every)
    return found


async def attempted(client: Client, workflow_id: str, times: int = 3) -> None:
    """Once the workflow's pending activity has been tried `times` times: a failing call retried, or a poll
    repeated by its retries."""

    async def attempts() -> int:
        described = await client.get_workflow_handle(workflow_id).describe()
        return max((pending.attempt for pending in described.raw_description.pending_activities), default=0)

    await eventually(attempts, lambda attempt: attempt >= times, what=f"{times} attempts of {workflow_id}'s activity")
