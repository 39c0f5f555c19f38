"""The event log's part in activities: a carrier step's first attempt, and what its carrier call ended with when
it was a refusal."""

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


def first_attempt() -> bool:
    """The first try of a step (Temporal's own retries of it are one attempt of the line's)."""
    return not activity.in_activity() or activity.info().attempt == 1


@asynccontextmanager
async def outcome_recorded(db: Database, enrollment_id: str, attempt: EventType | None = None) -> AsyncIterator[None]:
    """Wraps outside_call(): a failed call records, in one transaction, the step's `attempt` event (on its first
    attempt) and a carrier refusal (code and text); a successful one leaves the attempt's event to the write that
    records its outcome."""
    try:
        yield
    except ApplicationError as error:
        refused = error.type == CARRIER_REJECTED
        attempted = attempt is not None and first_attempt()
        if refused or attempted:
            async with db.transaction() as session:
                if attempt is not None and attempted:
                    await record(session, enrollment_id, attempt)
                if refused:
                    code = str(error.details[0]) if error.details else ""
                    text = error.message.removeprefix(f"{code} ")
                    await record(session, enrollment_id, EventType.CARRIER_REFUSED, code=code, text=text)
        if refused:
            carrier_refused(activity.metric_meter() if activity.in_activity() else None)
        raise
