"""How routes reach Temporal: start or update workflows, and turn Temporal failures into envelopes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.service import RPCError

from api.errors import refuse, upstream_down
from workflows.policies import CARRIER_REJECTED, NOT_FOUND


@asynccontextmanager
async def outside_system(system: str) -> AsyncIterator[None]:
    """A lookup through a workflow: its system's refusal or outage becomes the envelope decisions.md gives."""
    try:
        yield
    except RPCError:
        raise upstream_down("The workflow engine") from None
    except WorkflowFailureError as failure:
        cause: Any = failure.cause
        while isinstance(cause, ActivityError):
            cause = cause.cause
        if isinstance(cause, ApplicationError) and cause.type == CARRIER_REJECTED:
            raise refuse(cause.message) from None
        if isinstance(cause, ApplicationError) and cause.type == NOT_FOUND:
            raise refuse(cause.message, rest_status=404) from None
        raise upstream_down(system, timed_out=True) from None
