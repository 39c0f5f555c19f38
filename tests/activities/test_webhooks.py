"""WebhookActivities with ActivityEnvironment against the sandbox's receiver: the deliveries the event log queued
are found and taken once, a delivery retried after it got through is not sent again, and a receiver that keeps
failing makes a retried attempt, then a delivery given up."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.webhooks import WebhookActivities
from adapters.webhooks import WebhookSender
from models.db import Database
from models.events import WebhookDelivery
from models.webhooks import DeliveryJob, Dispatch
from tests.support.received import received, retried
from tests.support.webhooks import received as delivered
from tests.support.webhooks import receiver, register, verified

AT_ONCE = Dispatch(poll_seconds=0)  # one look, no waiting


@pytest.fixture
def served(api, sandbox_url) -> Any:
    """The API client with the sandbox's address, as the webhooks helpers find it on a Stack."""
    api.sandbox = sandbox_url
    return api


@pytest.fixture
async def activities(settings, db, cipher) -> AsyncIterator[WebhookActivities]:
    hooks = settings.webhooks
    sender = WebhookSender(timeout_seconds=hooks.timeout_seconds, production=False, allow_private=hooks.allow_private)
    yield WebhookActivities(sender, db, cipher, hooks)
    await sender.close()


async def queued_line(served, activities) -> tuple[str, str, DeliveryJob]:
    """A new endpoint's secret, a line received after it was registered, and the one delivery queued for it."""
    endpoint = await register(served, events="line.received")
    [enrollment_id] = await received(served, {})
    [job] = await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE)
    return endpoint.secret, enrollment_id, job


async def status_of(db: Database, job: DeliveryJob) -> str:
    async with db.transaction() as session:
        delivery = await session.get(WebhookDelivery, job.delivery_id)
        assert delivery is not None
        return delivery.status


async def test_queued_deliveries_are_found_until_taken(served, activities):
    _, _, job = await queued_line(served, activities)
    assert job.key and job.round == 0
    await ActivityEnvironment().run(activities.mark_taken, [job])
    assert await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE) == []


async def test_deliveries_are_taken_together_and_a_job_of_an_older_round_takes_nothing(served, activities):
    await register(served, events="line.received")
    await received(served, {})
    await received(served, {})
    first, second = await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE)
    # "Send again" made the second a round the dispatcher has not seen: its old job must not take it.
    await ActivityEnvironment().run(activities.mark_taken, [first, replace(second, round=second.round - 1)])
    assert await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE) == [second]


async def test_a_delivery_retried_after_it_got_through_is_sent_once(served, activities):
    secret, enrollment_id, job = await queued_line(served, activities)
    assert await ActivityEnvironment().run(activities.deliver, job) == "DELIVERED"
    assert await retried().run(activities.deliver, job) == "DELIVERED"
    [arrived] = await delivered(served, {enrollment_id})
    assert verified(arrived, secret)


async def test_a_receiver_that_keeps_failing_is_retried_then_given_up(served, activities, db):
    _, _, job = await queued_line(served, activities)
    await receiver(served, fail=True)
    try:
        with pytest.raises(ApplicationError) as failure:
            await ActivityEnvironment().run(activities.deliver, job)
    finally:
        await receiver(served, fail=False)
    assert not failure.value.non_retryable and "HTTP 503" in failure.value.message
    assert await status_of(db, job) == "RETRYING"
    await ActivityEnvironment().run(activities.give_up, job)
    assert await status_of(db, job) == "FAILED"
