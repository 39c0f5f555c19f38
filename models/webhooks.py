"""The webhooks domain's data: the dispatcher's and the delivery workflows' messages, which carry ids only (the event
row holds what is sent, the endpoint row the secret; both tables are models.events', whose event log queues a
delivery with each event), and the queries of the deliveries waiting for their first attempt and of an endpoint
as support sees it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import case, func
from sqlalchemy import select as select_rows
from sqlmodel import col, select

from models.auth import Vendor
from models.db import RecordNotFound, Session
from models.events import LineEvent, WebhookDelivery, WebhookEndpoint


@dataclass(frozen=True)
class Dispatch:
    """Input of WebhookDispatchWorkflow: how long one look for queued deliveries waits for one to appear."""

    poll_seconds: float = 20.0
    rounds: int = 100  # looks per run before it continues as new (its history stays short)
    # …or sooner, past this many history events (LINEUP_WORKFLOW_HISTORY_EVENTS) or when Temporal suggests it: a
    # look whose first attempts all failed starts LINEUP_WEBHOOK_CONCURRENCY retry workflows (up to 500), two
    # events each.
    history_events: int = 4000


@dataclass(frozen=True)
class DeliveryJob:
    """One delivery row, one round of it ("send again" queues another): what the dispatcher's first attempt and,
    when that failed, WebhookDeliveryWorkflow's retries are given."""

    delivery_id: int
    round: int = 0
    give_up_hours: float = 72.0
    max_backoff_seconds: float = 3600.0
    # `<endpoint id>-<event id>` (both random): the workflow id stays unique in a namespace that several
    # deployments (or a database started afresh) share, where delivery ids repeat.
    key: str = ""
    timeout_seconds: float = 10.0  # LINEUP_WEBHOOK_TIMEOUT_SECONDS: the whole POST, so an attempt ends within it


async def queued(session: Session, limit: int) -> list[tuple[int, int, str]]:
    """(delivery id, round, `<endpoint id>-<event id>`) of deliveries waiting for their first attempt, oldest first."""
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


async def failing_by_vendor(session: Session) -> dict[str, int]:
    """Each vendor with an active endpoint (by its code): how many of them fail since their last success. A
    disabled endpoint is not counted, so its vendor's alert ends once support or its budget disables it."""
    failing = func.count(case((col(WebhookEndpoint.failing_since).is_not(None), 1)))
    query = (
        select_rows(col(Vendor.code), failing)
        .join(Vendor, col(Vendor.id) == col(WebhookEndpoint.vendor_id))
        .where(col(WebhookEndpoint.active))
        .group_by(col(Vendor.code))
    )
    return {str(code): int(count) for code, count in (await session.execute(query)).all()}


async def oldest_undelivered_seconds(session: Session, now: datetime) -> float:
    """How long the oldest event waiting for its first delivery attempt to an active endpoint has waited (0: none
    waits): the dispatcher's lag. A failing receiver's retries are lineup_webhook_endpoints_failing's, and a
    round support sent again is not an event waiting."""
    query = (
        select_rows(func.min(col(WebhookDelivery.created_at)))
        .join(WebhookEndpoint, col(WebhookEndpoint.id) == col(WebhookDelivery.endpoint_id))
        # QUEUED: not yet taken by a look, whose first attempt counts itself as it takes the row (SENDING).
        .where(col(WebhookDelivery.status) == "QUEUED")
        .where(col(WebhookDelivery.attempts) == 0, col(WebhookDelivery.round) == 0, col(WebhookEndpoint.active))
    )
    oldest: datetime | None = (await session.execute(query)).scalar_one()
    if oldest is None:
        return 0.0
    oldest = oldest if oldest.tzinfo else oldest.replace(tzinfo=UTC)  # SQLite gives its UTC time naive
    return max(0.0, (now - oldest).total_seconds())


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
