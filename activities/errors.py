"""Classifies adapter failures for Temporal: a business "no" is final, an outage is retried."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio import activity
from temporalio.exceptions import ApplicationError

from adapters.http import Rejected, Unavailable
from models.failures import CARRIER_REJECTED, NOT_FOUND, UNAVAILABLE
from persistence.errors import RecordNotFound

HEARTBEAT_EVERY = 0.5  # the SDK sends at most one per 0.8 × the heartbeat timeout anyway


@asynccontextmanager
async def outside_call() -> AsyncIterator[None]:
    """Wraps one call to an outside system: heartbeats while it runs (a killed worker is noticed in
    seconds), and turns the adapter's failures into typed ApplicationErrors."""
    beating = asyncio.create_task(_beat()) if activity.in_activity() else None
    try:
        yield
    except Rejected as exc:
        raise ApplicationError(
            f"{exc.code} {exc.description}", exc.code, type=CARRIER_REJECTED, non_retryable=True
        ) from None
    except Unavailable as exc:
        raise ApplicationError(str(exc), type=UNAVAILABLE) from None
    except RecordNotFound as exc:
        raise ApplicationError(str(exc), type=NOT_FOUND, non_retryable=True) from None
    finally:
        if beating is not None:
            beating.cancel()


async def _beat() -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(HEARTBEAT_EVERY)
