"""The webhooks domain's data: the delivery workflows' messages, which carry ids only (the event row holds what is
sent, the endpoint row the secret; both tables are models.events', whose event log queues a delivery with each
event), and the queries of the deliveries waiting for a workflow and of an endpoint as support sees it."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

from models.db import RecordNotFound, Session
from models.events import LineEvent, WebhookDelivery, WebhookEndpoint


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


async def queued(session: Session, limit: int) -> list[tuple[int, int, str]]:
    """(delivery id, round, `<endpoint id>-<event id>`) of deliveries no workflow has taken yet, oldest first."""
    query = (
        select(WebhookDelivery.id, WebhookDelivery.round, WebhookEndpoint.public_id, LineEvent.public_id)
        .join(WebhookEndpoint, col(WebhookEndpoint.id) == col(WebhookDelivery.endpoint_id))
        .join(LineEvent, col(LineEvent.id) == col(WebhookDelivery.event_id))
        .where(WebhookDelivery.status == "QUEUED")
        .order_by(col(WebhookDelivery.id))
        .limit(limit)
    )
    rows = (await session.exec(query)).all()
    return [
        (delivery_id, round_, f"{endpoint}-{event}") for delivery_id, round_, endpoint, event in rows if delivery_id
    ]


async def endpoint_by_public_id(session: Session, public_id: str, *, vendor_id: int | None) -> WebhookEndpoint:
    """The endpoint (of this vendor; any when vendor_id is None), or RecordNotFound."""
    endpoint = (await session.exec(select(WebhookEndpoint).where(WebhookEndpoint.public_id == public_id))).first()
    if endpoint is None or vendor_id not in (None, endpoint.vendor_id):
        raise RecordNotFound(f"webhook endpoint {public_id} not found")
    return endpoint


async def recent_deliveries(
    session: Session, endpoint_id: int, limit: int = 20
) -> list[tuple[WebhookDelivery, LineEvent]]:
    """The endpoint's last deliveries, newest first, each with its event."""
    query = (
        select(WebhookDelivery, LineEvent)
        .join(LineEvent, col(LineEvent.id) == col(WebhookDelivery.event_id))
        .where(WebhookDelivery.endpoint_id == endpoint_id)
        .order_by(col(WebhookDelivery.id).desc())
        .limit(limit)
    )
    return [(delivery, event) for delivery, event in (await session.exec(query)).all()]
