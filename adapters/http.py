"""What every outside HTTP system shares: timeouts, the down/rejected split, idempotency headers, typed bodies both
ways (the wire's own names stay in the adapters), and how an activity reports a call's failure to Temporal (a
business "no" is final, an outage is retried, both in one log line without a traceback)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from models.db import RecordNotFound
from models.envelope import CARRIER_REJECTED, NOT_FOUND, UNAVAILABLE
from models.observability import outside_unavailable

TIMEOUT = httpx.Timeout(10.0, connect=3.0)
JSON = {"Content-Type": "application/json"}
HEARTBEAT_EVERY = 0.5  # the SDK sends at most one per 0.8 × the heartbeat timeout anyway
log = logging.getLogger("lineup.outside")


class Wire(BaseModel):
    """A body as the outside system spells it; what it adds that Lineup does not read is ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


W = TypeVar("W", bound=Wire)


class Body(Wire):
    """A request body given as a mapping: the fields a call sends, by the system's names, as they are."""

    model_config = ConfigDict(extra="allow")


class Unavailable(Exception):
    """The system did not answer usefully (connection error, timeout, 5xx, an answer it should not give):
    worth retrying."""

    def __init__(self, system: str, reason: str) -> None:
        super().__init__(f"{system} is unavailable: {reason}")
        self.system, self.reason = system, reason

    @property
    def label(self) -> str:
        """The system as a metric label: "The payment gateway" → "payment_gateway"."""
        return self.system.lower().removeprefix("the ").replace(" ", "_")


class Rejected(Exception):
    """The system answered with a business "no" (a non-00 STATUSCODE): retrying will not change it."""

    def __init__(self, code: str, description: str) -> None:
        super().__init__(f"{code} {description}")
        self.code, self.description = code, description


class JsonService:
    """POSTs JSON to one base URL and reads the answer as a typed body; transport failures are Unavailable."""

    system = "service"

    def __init__(self, base_url: str, client: httpx.AsyncClient | None = None) -> None:
        self._base = base_url.rstrip("/")
        self._client = client or httpx.AsyncClient(timeout=TIMEOUT)

    async def post(self, path: str, body: Wire, reply: type[W], *, key: str | None = None) -> W:
        return self.read(path, await self.send(path, body, key=key), reply)

    def read(self, path: str, content: bytes, reply: type[W]) -> W:
        """An answer as `reply`; one without what it must carry is as useless as no answer: retried like an
        outage."""
        try:
            return reply.model_validate_json(content)
        except ValidationError:
            raise Unavailable(self.system, f"answer of {path} not understood") from None

    async def send(self, path: str, body: Wire, *, key: str | None = None) -> bytes:
        """The answer's body, once the system answered (Unavailable when it did not, Rejected for a 4xx)."""
        headers = {"Idempotency-Key": key} if key else {}
        try:
            response = await self._client.post(
                f"{self._base}{path}", content=body.model_dump_json(), headers=headers | JSON
            )
        except httpx.HTTPError as exc:
            raise Unavailable(self.system, type(exc).__name__) from None
        if response.status_code >= 500:
            raise Unavailable(self.system, f"HTTP {response.status_code}")
        if response.status_code >= 400:
            # Our request was wrong: a bug, not an outage; retrying cannot help.
            raise Rejected(str(response.status_code), f"{self.system} refused the request")
        return response.content

    async def close(self) -> None:
        await self._client.aclose()


@asynccontextmanager
async def outside_call() -> AsyncIterator[None]:
    """Wraps one call to an outside system: heartbeats while it runs (a killed worker is noticed in
    seconds), and turns the adapter's failures into typed ApplicationErrors."""
    # A local activity (the order's first try) has no heartbeat: its workflow task is what a dead worker loses.
    beating = asyncio.create_task(_beat()) if activity.in_activity() and not activity.info().is_local else None
    try:
        yield
    except Rejected as exc:
        # One line per refusal: the carrier's code and words (the line's id is the workflow's).
        _warn("outside system refused", {"code": exc.code, "reason": exc.description})
        # BENIGN as an outage is: a carrier's "no" is an answer (the line waits for support), not a defect.
        raise ApplicationError(
            f"{exc.code} {exc.description}",
            exc.code,
            type=CARRIER_REJECTED,
            non_retryable=True,
            category=ApplicationErrorCategory.BENIGN,
        ) from None
    except Unavailable as exc:
        # One line per failed attempt (the system, the reason and where), and the outage counted.
        _warn("outside system unavailable", {"system": exc.label, "reason": exc.reason}, attempt=True)
        outside_unavailable(exc.label, activity.metric_meter() if activity.in_activity() else None)
        # BENIGN: the SDK logs it at DEBUG without its traceback (an outage is expected, and retried), and
        # Temporal retries it as any other failure; the compact line above says what happened.
        raise ApplicationError(str(exc), type=UNAVAILABLE, category=ApplicationErrorCategory.BENIGN) from None
    except RecordNotFound as exc:
        raise ApplicationError(str(exc), type=NOT_FOUND, non_retryable=True) from None
    finally:
        if beating is not None:
            beating.cancel()


def _warn(message: str, fields: dict[str, object], *, attempt: bool = False) -> None:
    """A WARNING line without a traceback, saying in which activity (and attempt) of which workflow."""
    if activity.in_activity():
        info = activity.info()
        fields["activity"] = info.activity_type
        if attempt:
            fields["attempt"] = info.attempt
        fields["workflow_id"] = info.workflow_id
    log.warning(message, extra={"fields": fields})


async def _beat() -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(HEARTBEAT_EVERY)
