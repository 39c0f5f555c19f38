"""Repository of webhooks: a vendor's endpoints and their deliveries (written by persistence.events with each
event; moved along by the delivery workflow's activities)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import col, select

from models.tables.events import LineEvent, WebhookDelivery, WebhookEndpoint
from persistence.errors import RecordNotFound
from persistence.transaction import DbSession


async def vendor_endpoints(session: DbSession, vendor_id: int) -> list[WebhookEndpoint]:
    query = select(WebhookEndpoint).where(WebhookEndpoint.vendor_id == vendor_id).order_by(col(WebhookEndpoint.id))
    return list((await session.exec(query)).all())


async def endpoint_by_public_id(session: DbSession, public_id: str, *, vendor_id: int | None) -> WebhookEndpoint:
    """The endpoint (of this vendor; any when vendor_id is None), or RecordNotFound."""
    endpoint = (await session.exec(select(WebhookEndpoint).where(WebhookEndpoint.public_id == public_id))).first()
    if endpoint is None or vendor_id not in (None, endpoint.vendor_id):
        raise RecordNotFound(f"webhook endpoint {public_id} not found")
    return endpoint


async def queued(session: DbSession, limit: int) -> list[tuple[int, int, str]]:
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


@dataclass(frozen=True)
class DeliveryView:
    """A delivery as the console shows it."""

    id: int
    event_id: str
    event_type: str
    enrollment_id: str
    status: str
    attempts: int
    last_status: int | None
    last_answer: str | None
    last_attempt_at: datetime | None


async def recent_deliveries(session: DbSession, endpoint_id: int, limit: int = 20) -> list[DeliveryView]:
    query = (
        select(WebhookDelivery, LineEvent)
        .join(LineEvent, col(LineEvent.id) == col(WebhookDelivery.event_id))
        .where(WebhookDelivery.endpoint_id == endpoint_id)
        .order_by(col(WebhookDelivery.id).desc())
        .limit(limit)
    )
    return [
        DeliveryView(
            delivery.id or 0,
            event.public_id,
            event.type,
            event.enrollment_id,
            delivery.status,
            delivery.attempts,
            delivery.last_status,
            delivery.last_answer,
            delivery.last_attempt_at,
        )
        for delivery, event in (await session.exec(query)).all()
    ]
