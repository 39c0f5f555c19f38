"""WebhookActivities.deliver with ActivityEnvironment against a local receiver (issue 27, findings 10 and 12): an
attempt is counted before its POST and its outcome recorded when it ends or is cancelled, so a receiver answering
a byte every few seconds is counted and its endpoint disabled by its budget; a failed delivery logs one line with
its reason and no traceback."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import select
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.webhooks import WebhookActivities
from adapters.webhooks import WebhookSender
from models.auth import Vendor
from models.crypto import cipher_for
from models.db import Database
from models.envelope import ENDPOINT_DISABLED
from models.events import LineEvent, WebhookDelivery, WebhookEndpoint
from models.webhooks import DeliveryJob
from tests.support.receivers import dripping, receiver

TIMEOUT = 1.0


@pytest.fixture
async def parts(settings: Any) -> AsyncIterator[tuple[WebhookActivities, Database]]:
    db = Database(settings)
    sender = WebhookSender(timeout_seconds=TIMEOUT, production=False, allow_private=False)
    yield WebhookActivities(sender, db, cipher_for(settings), settings.webhooks), db
    await sender.close()
    await db.dispose()


async def queued_delivery(db: Database, settings: Any, url: str) -> int:
    """An endpoint at `url` and one event's delivery to it, taken by the dispatcher (SENDING)."""
    tag = secrets.token_hex(6)
    async with db.transaction() as session:
        vendor = (await session.exec(select(Vendor).where(Vendor.code == "DEMO"))).one()
        assert vendor.id is not None
        secret = cipher_for(settings).encrypt("whsec_test")
        endpoint = WebhookEndpoint(public_id=f"whe_{tag}", vendor_id=vendor.id, url=url, event_types="", secret=secret)
        event = LineEvent(
            public_id=f"evt_{tag}", vendor_id=vendor.id, enrollment_id="E1", type="line.received", actor="l", data="{}"
        )
        session.add(endpoint)
        session.add(event)
        await session.flush()
        assert endpoint.id is not None and event.id is not None
        delivery = WebhookDelivery(endpoint_id=endpoint.id, event_id=event.id, status="SENDING")
        session.add(delivery)
        await session.flush()
        assert delivery.id is not None
        return delivery.id


async def rows(db: Database, delivery_id: int) -> tuple[WebhookDelivery, WebhookEndpoint]:
    async with db.transaction() as session:
        delivery = await session.get(WebhookDelivery, delivery_id)
        assert delivery is not None
        endpoint = await session.get(WebhookEndpoint, delivery.endpoint_id)
        assert endpoint is not None
        return delivery, endpoint


async def test_an_attempt_cut_short_is_counted_with_its_outcome(parts, settings):
    """A worker whose attempt is cancelled mid-POST (its start-to-close passed, the worker stops)."""
    activities, db = parts
    slow = WebhookSender(timeout_seconds=60, production=False, allow_private=False)  # the POST outlives the attempt
    activities = WebhookActivities(slow, db, cipher_for(settings), settings.webhooks)
    async with receiver(dripping) as url:
        delivery_id = await queued_delivery(db, settings, url)
        job = DeliveryJob(delivery_id)
        try:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(ActivityEnvironment().run(activities.deliver, job), timeout=1.0)
        finally:
            await slow.close()
    delivery, endpoint = await rows(db, delivery_id)
    assert delivery.attempts == 1 and delivery.first_attempt_at is not None
    assert (delivery.status, delivery.last_answer) == ("RETRYING", "attempt cancelled before an answer")
    assert endpoint.failing_since == delivery.last_attempt_at


async def test_a_receiver_answering_a_byte_at_a_time_is_counted_and_disabled_by_its_budget(parts, settings, caplog):
    caplog.set_level(logging.DEBUG)
    activities, db = parts
    budget_hours = 2.5 / 3600  # 2.5 s: two attempts of one second fail within it, the third is past it
    async with receiver(dripping) as url:
        delivery_id = await queued_delivery(db, settings, url)
        job = DeliveryJob(delivery_id, give_up_hours=budget_hours)
        failures: list[ApplicationError] = []
        for _ in range(4):
            began = asyncio.get_running_loop().time()
            try:
                await asyncio.wait_for(ActivityEnvironment().run(activities.deliver, job), timeout=10)
            except ApplicationError as failure:
                failures.append(failure)
            assert asyncio.get_running_loop().time() - began < TIMEOUT + 1.5  # one deadline for the POST
            if failures[-1].type == ENDPOINT_DISABLED:
                break
            await asyncio.sleep(0.4)
    delivery, endpoint = await rows(db, delivery_id)
    assert [failure.non_retryable for failure in failures] == [False] * (len(failures) - 1) + [True]
    assert delivery.attempts == len(failures) >= 3
    assert (delivery.status, delivery.last_status, delivery.last_answer) == ("FAILED", None, "no answer within 1 s")
    assert delivery.last_attempt_at and endpoint.failing_since and endpoint.disabled_reason
    assert delivery.last_attempt_at - endpoint.failing_since >= timedelta(hours=budget_hours)
    assert not endpoint.active and endpoint.disabled_reason.endswith("last answer: no answer within 1 s")
    lines = [record for record in caplog.records if record.getMessage() == "webhook delivery failed"]
    assert len(lines) == len(failures) and all(record.levelname == "WARNING" for record in lines)
    assert lines[0].fields["reason"] == "no answer within 1 s"
    traced = [record for record in caplog.records if record.exc_info and record.levelno >= logging.INFO]
    assert traced == [], [record.getMessage() for record in traced]
