"""Classifies adapter failures for Temporal: a business "no" is final, an outage is retried."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from adapters.http import Rejected, Unavailable
from models.failures import CARRIER_REJECTED, DATABASE_UNAVAILABLE, NOT_FOUND, UNAVAILABLE
from observability.metrics import outside_unavailable
from persistence.errors import RecordNotFound, database_unavailable

log = logging.getLogger("lineup.outside")
HEARTBEAT_EVERY = 0.5  # the SDK sends at most one per 0.8 × the heartbeat timeout anyway


@asynccontextmanager
async def outside_call() -> AsyncIterator[None]:
    """Wraps one call to an outside system: heartbeats while it runs (a killed worker is noticed in
    seconds), and turns the adapter's failures into typed ApplicationErrors."""
    # A local activity (the order's first try) has no heartbeat: its workflow task is what a dead worker loses.
    beating = asyncio.create_task(_beat()) if activity.in_activity() and not activity.info().is_local else None
    try:
        yield
    except Rejected as exc:
        _refused(exc)
        # BENIGN as an outage is: a carrier's "no" is an answer (the line waits for support), not a defect.
        raise ApplicationError(
            f"{exc.code} {exc.description}",
            exc.code,
            type=CARRIER_REJECTED,
            non_retryable=True,
            category=ApplicationErrorCategory.BENIGN,
        ) from None
    except Unavailable as exc:
        _attempt_failed(exc)
        # BENIGN: the SDK logs it at DEBUG without its traceback (an outage is expected, and retried), and
        # Temporal retries it as any other failure; the compact line above says what happened.
        raise ApplicationError(str(exc), type=UNAVAILABLE, category=ApplicationErrorCategory.BENIGN) from None
    except RecordNotFound as exc:
        raise ApplicationError(str(exc), type=NOT_FOUND, non_retryable=True) from None
    finally:
        if beating is not None:
            beating.cancel()


def _attempt_failed(exc: Unavailable) -> None:
    """One line per failed attempt (no traceback: the system, the reason and where), and the outage counted."""
    fields: dict[str, object] = {"system": exc.label, "reason": exc.reason}
    meter = None
    if activity.in_activity():
        info = activity.info()
        fields |= {"activity": info.activity_type, "attempt": info.attempt, "workflow_id": info.workflow_id}
        meter = activity.metric_meter()
    log.warning("outside system unavailable", extra={"fields": fields})
    outside_unavailable(exc.label, meter)


def _refused(exc: Rejected) -> None:
    """One line per refusal, no traceback: the carrier's code and words (the line's id is the workflow's)."""
    fields: dict[str, object] = {"code": exc.code, "reason": exc.description}
    if activity.in_activity():
        info = activity.info()
        fields |= {"activity": info.activity_type, "workflow_id": info.workflow_id}
    log.warning("outside system refused", extra={"fields": fields})


async def _beat() -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(HEARTBEAT_EVERY)


@asynccontextmanager
async def database_outage() -> AsyncIterator[None]:
    """Wraps a carrier step's activity: Lineup's own database away is its own failure type (one log line, no
    traceback), which the workflow waits out instead of spending the carrier's attempts on it."""
    try:
        yield
    except Exception as problem:
        if not database_unavailable(problem):
            raise
        log.warning("database unavailable", extra={"fields": {"reason": type(problem).__name__}})
        raise ApplicationError(
            "The database is unavailable", type=DATABASE_UNAVAILABLE, category=ApplicationErrorCategory.BENIGN
        ) from None
