"""Issue 35, findings 9 and 14: the webhook series the alerts watch, on `GET /metrics`. The age of the oldest event
waiting for its first delivery attempt (the dispatcher's lag: no alert watched it while a soak's events went out
minutes late), and failing endpoints by vendor, a disabled endpoint not counted, so that one tenant's broken
receiver raises its own alert and that alert ends once the endpoint is disabled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from api.webhooks import disable_endpoint
from models.events import LineEvent, WebhookDelivery, WebhookEndpoint
from models.types import utcnow
from tests.support import overview_rows as rows
from tests.support.metrics import scrape_api as scrape
from tests.support.metrics import value

NO_CACHE = {"metrics_cache_seconds": 0}  # every scrape reads the database
AGE = "lineup_webhook_oldest_undelivered_seconds"
FAILING = "lineup_webhook_endpoints_failing"


async def deliveries(db, public_id: str, vendor_id: int, *waiting: dict[str, object]) -> None:
    """One event of the vendor and its delivery to the endpoint per row of `waiting` (the delivery's columns)."""
    eid = rows.new_eid()
    now = utcnow()
    await rows.insert_rows(db, LineEvent, [rows.event(eid, vendor_id, "line.received", now) for _ in waiting])
    async with db.transaction() as session:
        endpoint = (await session.exec(select(WebhookEndpoint).where(WebhookEndpoint.public_id == public_id))).one()
        events = (await session.exec(select(LineEvent.id).where(LineEvent.enrollment_id == eid))).all()
    made = [{"endpoint_id": endpoint.id, "event_id": event} | row for event, row in zip(events, waiting, strict=True)]
    await rows.insert_rows(db, WebhookDelivery, made)


@pytest.mark.parametrize("settings_overrides", [NO_CACHE])
async def test_metrics_the_oldest_event_waiting_for_its_first_delivery_attempt(api):
    assert value(await scrape(api), AGE) == 0  # nothing waits
    vendors, now = await rows.vendor_ids(api.db), utcnow()
    active = await rows.endpoint(api.db, vendors["DEMO"], failing_since=None)
    disabled = await rows.endpoint(api.db, vendors["DEMO"], failing_since=None, active=False)
    await deliveries(
        api.db,
        active,
        vendors["DEMO"],
        {"status": "QUEUED", "created_at": now - timedelta(seconds=90)},  # the dispatcher has not taken it
        # Not waiting on the dispatcher: a first attempt under way (counted as the look took it), a receiver's
        # failure retried, and a round support sent again.
        {"status": "SENDING", "attempts": 1, "created_at": now - timedelta(days=4)},
        {"status": "RETRYING", "attempts": 3, "created_at": now - timedelta(days=2)},
        {"status": "QUEUED", "round": 1, "created_at": now - timedelta(days=1)},
        {"status": "DELIVERED", "attempts": 1, "created_at": now - timedelta(days=3)},
    )
    await deliveries(api.db, disabled, vendors["DEMO"], {"status": "QUEUED", "created_at": now - timedelta(hours=1)})
    assert 90 <= value(await scrape(api), AGE) < 150


@pytest.mark.parametrize("settings_overrides", [NO_CACHE])
async def test_metrics_failing_endpoints_by_vendor_end_once_the_endpoint_is_disabled(api):
    vendors, now = await rows.vendor_ids(api.db), utcnow()
    broken = await rows.endpoint(api.db, vendors["OTHER"], failing_since=now - timedelta(hours=5))
    await rows.endpoint(api.db, vendors["DEMO"], failing_since=None)  # delivering
    await rows.endpoint(api.db, vendors["DEMO"], failing_since=now - timedelta(days=4), active=False)

    text = await scrape(api)
    assert (value(text, FAILING, vendor="OTHER"), value(text, FAILING, vendor="DEMO")) == (1, 0)

    async with api.db.transaction() as session:
        await disable_endpoint(session, broken, vendor_id=None, by="support:ops")
    text = await scrape(api)
    assert (value(text, FAILING, vendor="OTHER"), value(text, FAILING, vendor="DEMO")) == (0, 0)
