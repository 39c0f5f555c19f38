"""Webhook endpoints, as the CLI (`lineup webhook …`) and the console manage them: register one (its secret
shown once, kept encrypted because every delivery is signed with it), list, disable, and send a delivery again.
The event types an endpoint takes are models.events' (all when none are named)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlmodel import col, select

from adapters.webhooks import resolved_problem
from models.crypto import FieldCipher
from models.db import Session
from models.envelope import refuse
from models.events import LineEvent, WebhookDelivery, WebhookEndpoint, parse_types
from models.settings import Settings
from models.webhooks import endpoint_by_public_id, recent_deliveries


@dataclass(frozen=True)
class Registered:
    endpoint: WebhookEndpoint
    secret: str  # in the clear only in this answer


async def add_endpoint(
    session: Session, cipher: FieldCipher, settings: Settings, *, vendor_id: int, url: str, events: str | None
) -> Registered:
    """A new endpoint; refused (LineupError) for a URL the policy forbids or an unknown event type."""
    try:
        types = parse_types(events)
    except ValueError as unknown:
        raise refuse(str(unknown)) from None
    if problem := await url_refusal(url, settings):
        raise refuse(problem)
    secret = f"whsec_{secrets.token_urlsafe(32)}"
    endpoint = WebhookEndpoint(
        public_id=f"whe_{secrets.token_hex(8)}",
        vendor_id=vendor_id,
        url=url,
        event_types=",".join(types),
        secret=cipher.encrypt(secret),
    )
    session.add(endpoint)
    await session.flush()
    return Registered(endpoint, secret)


async def endpoints(session: Session, vendor_id: int) -> list[WebhookEndpoint]:
    query = select(WebhookEndpoint).where(WebhookEndpoint.vendor_id == vendor_id).order_by(col(WebhookEndpoint.id))
    return list((await session.exec(query)).all())


async def console_endpoints(
    session: Session, vendor_id: int
) -> list[tuple[WebhookEndpoint, list[tuple[WebhookDelivery, LineEvent]]]]:
    """The vendor's endpoints as the console shows them: each with its last deliveries, newest first."""
    return [
        (endpoint, await recent_deliveries(session, endpoint.id or 0))
        for endpoint in await endpoints(session, vendor_id)
    ]


async def disable_endpoint(session: Session, public_id: str, *, vendor_id: int | None, by: str) -> WebhookEndpoint:
    """Switched off: its queued and retrying deliveries end at their next attempt."""
    endpoint = await endpoint_by_public_id(session, public_id, vendor_id=vendor_id)
    if endpoint.active:
        endpoint.active, endpoint.disabled_reason = False, f"Disabled by {by}"
    return endpoint


async def send_again(session: Session, delivery_id: int, *, vendor_id: int) -> WebhookDelivery:
    """A new round of a delivery (same event, same `id`): queued for the dispatcher with its attempts reset."""
    delivery = await session.get(WebhookDelivery, delivery_id)
    endpoint = await session.get(WebhookEndpoint, delivery.endpoint_id) if delivery else None
    if delivery is None or endpoint is None or endpoint.vendor_id != vendor_id:
        raise refuse("No such delivery", rest_status=404)
    if not endpoint.active:
        raise refuse("The endpoint is disabled", rest_status=409)
    delivery.round += 1
    delivery.status, delivery.attempts, delivery.first_attempt_at = "QUEUED", 0, None
    return delivery


async def url_refusal(url: str, settings: Settings) -> str | None:
    """Why this URL may not receive webhooks under these settings (None: it may)."""
    production, allow_private = settings.profile == "production", settings.webhooks.allow_private
    return await resolved_problem(url, production=production, allow_private=allow_private)
