"""Temporal from the API's side, for the API, the worker and the CLI alike: connecting (the one place that applies
the TLS and API-key settings, the tracing interceptor and the payload encryption), the process's client
connected in the background (so the API starts before Temporal does), Temporal's failures turned into the
envelope decisions.md gives, and what every worker sets up as it starts: the sweep's schedule, the webhook
dispatcher, the search attributes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import timedelta
from pathlib import Path
from typing import TypedDict

from opentelemetry.sdk.trace import TracerProvider
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import (
    Client,
    Interceptor,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleUpdate,
    WithStartWorkflowOperation,
    WorkflowFailureError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.common import SearchAttributeIndexedValueType, WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.runtime import Runtime
from temporalio.service import RPCError, RPCStatusCode, TLSConfig
from temporalio.types import ReturnType, SelfType

from models.crypto import data_converter, load_key
from models.enrollment.lines import Pacing
from models.envelope import CARRIER_REJECTED, NOT_FOUND, refuse, upstream_down
from models.observability import temporal_interceptor, tracer_provider
from models.settings import Settings
from models.support import Sweep
from models.webhooks import Dispatch
from workflows.enrollment import ALL
from workflows.support import SweepWorkflow
from workflows.webhooks import WebhookDispatchWorkflow, dispatch_workflow_id

log = logging.getLogger("lineup.temporal")


class StartOnce(TypedDict):
    id_conflict_policy: WorkflowIDConflictPolicy
    id_reuse_policy: WorkflowIDReusePolicy


# A workflow that runs once for its business id: a second start finds the running one, and one that has ended
# (whatever its end) is never run again. Its start's options, for the starts that are made this way.
START_ONCE = StartOnce(
    id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING, id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE
)


async def connect(
    settings: Settings, *, runtime: Runtime | None = None, tracing: TracerProvider | None = None
) -> Client:
    """`tracing` overrides the provider the settings give (tests hand in one with an in-memory exporter)."""
    provider = tracing or tracer_provider(
        settings.observability.otlp_endpoint, settings.observability.otlp_service_name
    )
    interceptors: list[Interceptor] = [temporal_interceptor(provider)] if provider is not None else []
    api_key = settings.temporal.api_key.get_secret_value() or None
    return await Client.connect(
        settings.temporal.address,
        namespace=settings.temporal.namespace,
        # None with an API key: the SDK turns TLS on with the system's trust store, as Temporal Cloud needs.
        tls=tls_config(settings),
        api_key=api_key,
        interceptors=interceptors,
        runtime=runtime,
        data_converter=data_converter(load_key(settings)),
    )


def tls_config(settings: Settings) -> TLSConfig | None:
    """The TLS settings as the SDK takes them, the PEM files read now; None when none is set."""
    if not settings.temporal.tls:
        return None
    return TLSConfig(
        server_root_ca_cert=_read(settings.temporal.tls_ca),
        client_cert=_read(settings.temporal.tls_cert),
        client_private_key=_read(settings.temporal.tls_key),
        domain=settings.temporal.tls_server_name or None,
    )


def _read(path: str) -> bytes | None:
    return Path(path).read_bytes() if path else None


async def connect_until_up(
    settings: Settings, *, runtime: Runtime | None = None, tracing: TracerProvider | None = None
) -> Client:
    """Retries with backoff: under `make run` the API and worker may start before Temporal answers."""
    tls_config(settings)  # a missing certificate file is a mistake to report, not an outage to wait out
    delay = 0.2
    while True:
        try:
            return await connect(settings, runtime=runtime, tracing=tracing)
        except Exception as exc:  # noqa: BLE001 — any failure means "not yet"; readyz reports it meanwhile
            log.warning("temporal not reachable yet", extra={"fields": {"error": str(exc)}})
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


class TemporalLink:
    """The process's Temporal client; `client()` refuses with "unavailable" while it is not connected."""

    def __init__(self, settings: Settings, client: Client | None = None) -> None:
        self.settings = settings
        self._client = client
        self._task: asyncio.Task[None] | None = None

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
            with suppress(asyncio.CancelledError):
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


async def taken(
    client: Client, start: WithStartWorkflowOperation[SelfType, ReturnType], workflow_id: str, *, within: float
) -> bool:
    """After an update-with-start that failed or ran out of time: whether its workflow exists, so the work is
    taken and goes on without the caller. The start's own answer says so; a call cut before that answer came
    back (a worker away, the wait's budget spent) asks the engine, within `within` seconds."""
    if await started_anyway(start):
        return True
    try:
        async with asyncio.timeout(within):
            await client.get_workflow_handle(workflow_id).describe()
    except (TimeoutError, RPCError):  # not found, or the engine itself away: not known to be taken
        return False
    return True


def sweep_schedule_id(settings: Settings) -> str:
    """`lineup-sweep` by default: named after the task queue, as deployments sharing a namespace are."""
    return f"{settings.temporal.task_queue}-sweep"


def sweep_schedule(settings: Settings) -> Schedule:
    sweep = Sweep(
        settings.sweep.grace_seconds,
        settings.auth.token_retention_hours,
        Pacing.of(settings),
        proof_retention_days=settings.auth.proof_retention_days,
    )
    return Schedule(
        action=ScheduleActionStartWorkflow(
            SweepWorkflow.run, sweep, id=sweep_schedule_id(settings), task_queue=settings.temporal.task_queue
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=timedelta(seconds=settings.sweep.interval_seconds))]),
        # A sweep still running when the next is due makes the next unnecessary.
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )


async def ensure_sweep_schedule(client: Client, settings: Settings) -> None:
    """Every worker does this as it starts, so the last one started sets the interval; 0 s removes the schedule."""
    schedule_id = sweep_schedule_id(settings)
    if settings.sweep.interval_seconds <= 0:
        with suppress(RPCError):  # there was none
            await client.get_schedule_handle(schedule_id).delete()
        return
    schedule = sweep_schedule(settings)
    try:
        await client.create_schedule(schedule_id, schedule)
    except ScheduleAlreadyRunningError:
        await client.get_schedule_handle(schedule_id).update(lambda _: ScheduleUpdate(schedule=schedule))


async def register(client: Client, namespace: str) -> None:
    """Adds every attribute to the namespace (idempotent: an existing one only makes the server log a warning).
    Needed before a worker runs a workflow that sets one (temporal.md)."""
    request = AddSearchAttributesRequest(
        namespace=namespace,
        search_attributes={key.name: IndexedValueType.ValueType(key.indexed_value_type) for key in ALL},
    )
    await client.operator_service.add_search_attributes(request)


async def ensure_registered(client: Client, namespace: str) -> None:
    """Every worker registers the attributes as it starts, before it polls: a workflow setting one the namespace
    lacks fails its task every 10 s (temporal.md), and a dev server started again on its database (`make run`)
    registers no attribute added to its flags since. A cluster that refuses it keeps `lineup temporal setup`'s."""
    try:
        await register(client, namespace)
    except RPCError as error:
        if error.status not in (RPCStatusCode.PERMISSION_DENIED, RPCStatusCode.UNIMPLEMENTED):
            raise
        log.warning("search attributes not registered (run `lineup temporal setup`): %s", error.message)


# The CLI's names of the attribute types Lineup uses (`--search-attribute Name=Type`).
DEV_SERVER_TYPES = {
    SearchAttributeIndexedValueType.KEYWORD: "Keyword",
    SearchAttributeIndexedValueType.KEYWORD_LIST: "KeywordList",
}


def dev_server_flags() -> list[str]:
    """`temporal server start-dev` flags that register every attribute before any worker starts (on a persisted
    database too: an attribute registered already stays, a new one is added)."""
    return [
        flag for key in ALL for flag in ("--search-attribute", f"{key.name}={DEV_SERVER_TYPES[key.indexed_value_type]}")
    ]


async def ensure_dispatch(client: Client, settings: Settings) -> None:
    """Starts the dispatcher of this task queue unless it runs (every worker does this as it starts)."""
    await client.start_workflow(
        WebhookDispatchWorkflow.run,
        Dispatch(history_events=settings.worker.history_events),
        id=dispatch_workflow_id(settings),
        task_queue=settings.temporal.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
