"""How operations reach Temporal: one client per process, connected in the background so the API starts
before Temporal does, and Temporal's failures turned into the envelope decisions.md gives."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowFailureError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.service import RPCError
from temporalio.types import ReturnType, SelfType

from models.errors import refuse, upstream_down
from models.failures import CARRIER_REJECTED, NOT_FOUND
from models.settings import Settings
from orchestration.client import connect_until_up


class TemporalLink:
    """The process's Temporal client; `client()` refuses with "unavailable" while it is not connected."""

    def __init__(self, settings: Settings, client: Client | None = None) -> None:
        self.settings = settings
        self._client = client
        self._task: asyncio.Task[None] | None = None

    @property
    def task_queue(self) -> str:
        return self.settings.temporal.task_queue

    @property
    def connected(self) -> Client | None:
        return self._client

    def start(self) -> None:
        if self._client is None:
            self._task = asyncio.create_task(self._connect())

    async def _connect(self) -> None:
        self._client = await connect_until_up(self.settings)

    def client(self) -> Client:
        """The client, or the upstream-down envelope while Temporal is not reachable."""
        if self._client is None:
            raise upstream_down("The workflow engine")
        return self._client

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


@asynccontextmanager
async def outside_system(system: str, *, within: float) -> AsyncIterator[None]:
    """A call through a workflow, answered within `within` seconds: its system's refusal or outage, or
    Temporal's silence, becomes the envelope decisions.md gives."""
    try:
        async with asyncio.timeout(within):
            yield
    except (TimeoutError, WorkflowUpdateRPCTimeoutOrCancelledError):  # the SDK's word for a cancelled update
        raise upstream_down("The workflow engine", timed_out=True) from None
    except RPCError:
        raise upstream_down("The workflow engine") from None
    except WorkflowFailureError as failure:
        cause: BaseException | None = failure.cause
        while isinstance(cause, ActivityError):
            cause = cause.cause
        if isinstance(cause, ApplicationError) and cause.type == CARRIER_REJECTED:
            raise refuse(cause.message) from None
        if isinstance(cause, ApplicationError) and cause.type == NOT_FOUND:
            raise refuse(cause.message, rest_status=404) from None
        raise upstream_down(system, timed_out=True) from None


async def started_anyway(start: WithStartWorkflowOperation[SelfType, ReturnType]) -> bool:
    """After an update-with-start that failed or ran out of time: whether its workflow started (its work goes on
    without the caller). Reading the start's outcome also keeps asyncio from logging an error nobody read
    ("Future exception was never retrieved"); call it after every update-with-start that did not answer. The
    SDK settles the outcome before the call returns or raises, so this never waits."""
    try:
        async with asyncio.timeout(1.0):
            await start.workflow_handle()
    except asyncio.CancelledError:  # the call was cancelled before the start's answer: not started
        task = asyncio.current_task()
        if task is not None and task.cancelling():  # this caller itself is being cancelled: let it go
            raise
        return False
    except Exception:  # noqa: BLE001 — the start itself failed (or the engine never said): it did not start
        return False
    return True
