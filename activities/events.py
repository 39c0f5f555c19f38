"""The event log's part in activities: what an activity's carrier call ended with, when it was a refusal."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio import activity
from temporalio.exceptions import ApplicationError

from models.events import EventType
from models.failures import CARRIER_REJECTED
from observability.metrics import carrier_refused
from persistence.engine import Database
from persistence.events import record


@asynccontextmanager
async def refusal_recorded(db: Database, enrollment_id: str) -> AsyncIterator[None]:
    """Wraps outside_call(): a carrier refusal (code and text) becomes the line's event, then goes on up."""
    try:
        yield
    except ApplicationError as error:
        if error.type == CARRIER_REJECTED:
            code = str(error.details[0]) if error.details else ""
            async with db.transaction() as session:
                text = error.message.removeprefix(f"{code} ")
                await record(session, enrollment_id, EventType.CARRIER_REFUSED, code=code, text=text)
            carrier_refused(activity.metric_meter() if activity.in_activity() else None)
        raise


async def attempt_recorded(db: Database, enrollment_id: str, kind: EventType) -> None:
    """The first try of a step (Temporal's own retries of it are one attempt of the line's)."""
    if not activity.in_activity() or activity.info().attempt == 1:
        async with db.transaction() as session:
            await record(session, enrollment_id, kind)
