"""Messages of webhook delivery: ids only (the event row holds what is sent, the endpoint row the secret)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dispatch:
    """Input of WebhookDispatchWorkflow: how long one look for queued deliveries waits for one to appear."""

    poll_seconds: float = 20.0
    rounds: int = 100  # looks per run before it continues as new (its history stays short)
    # …or sooner, past this many history events (LINEUP_WORKFLOW_HISTORY_EVENTS) or when Temporal suggests it: a
    # look may start a hundred deliveries, two events each.
    history_events: int = 4000


@dataclass(frozen=True)
class DeliveryJob:
    """Input of WebhookDeliveryWorkflow: one delivery row, one round of it ("send again" starts another)."""

    delivery_id: int
    round: int = 0
    give_up_hours: float = 72.0
    max_backoff_seconds: float = 3600.0
    # `<endpoint id>-<event id>` (both random): the workflow id stays unique in a namespace that several
    # deployments (or a database started afresh) share, where delivery ids repeat.
    key: str = ""
    timeout_seconds: float = 10.0  # LINEUP_WEBHOOK_TIMEOUT_SECONDS: the whole POST, so an attempt ends within it
