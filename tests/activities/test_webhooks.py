"""WebhookActivities with ActivityEnvironment against the sandbox's receiver: the deliveries the event log queued
are found and taken once (by their first attempt), a look's batch or a delivery made again after it got through
sends nothing twice, a first attempt that fails is handed to a retry, and a receiver that keeps failing makes a
retried attempt, then a delivery given up."""

from __future__ import annotations

import time
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


async def test_queued_deliveries_are_found_until_their_first_attempt(served, activities):
    _, _, job = await queued_line(served, activities)
    assert job.key and job.round == 0
    assert await ActivityEnvironment().run(activities.first_attempts, [job]) == []  # delivered: nothing to retry
    assert await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE) == []


async def test_first_attempts_are_made_together_and_a_job_of_an_older_round_sends_nothing(served, activities):
    await register(served, events="line.received")
    [one] = await received(served, {})
    [two] = await received(served, {})
    first, second = await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE)
    # "Send again" made the second a round the dispatcher has not seen: its old job must not take it.
    stale = replace(second, round=second.round - 1)
    assert await ActivityEnvironment().run(activities.first_attempts, [first, stale]) == []
    assert await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE) == [second]
    assert len(await delivered(served, {one})) == 1 and await delivered(served, {two}) == []


async def test_a_look_made_again_after_its_worker_died_posts_nothing_twice(served, activities, db):
    await register(served, events="line.received")
    lines = {*(await received(served, {})), *(await received(served, {}))}
    jobs = await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE)
    assert await ActivityEnvironment().run(activities.first_attempts, jobs) == []
    # Temporal's second attempt of the batch (the first one's answer was lost with its worker): the same jobs.
    assert await retried().run(activities.first_attempts, jobs) == []
    assert len(await delivered(served, lines)) == 2
    assert [await status_of(db, job) for job in jobs] == ["DELIVERED", "DELIVERED"]


async def test_a_first_attempt_that_fails_is_handed_to_a_retry_which_delivers_it_once(served, activities, db):
    secret, enrollment_id, job = await queued_line(served, activities)
    await receiver(served, fail_next=1)
    assert await ActivityEnvironment().run(activities.first_attempts, [job]) == [job]
    assert await status_of(db, job) == "RETRYING"
    assert await delivered(served, {enrollment_id}) == []
    assert await retried().run(activities.deliver, job) == "DELIVERED"
    assert await retried().run(activities.deliver, job) == "DELIVERED"  # the retry's answer lost: not sent again
    [arrived] = await delivered(served, {enrollment_id})
    assert verified(arrived, secret)


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


async def test_a_looks_first_attempts_to_slow_receivers_run_side_by_side(served, activities):
    await register(served, events="line.received")
    lines = {line for _ in range(4) for line in await received(served, {})}
    jobs = await ActivityEnvironment().run(activities.queued_deliveries, AT_ONCE)
    await receiver(served, latency_ms=1000)
    try:
        began = time.monotonic()
        assert await ActivityEnvironment().run(activities.first_attempts, jobs) == []
        took = time.monotonic() - began
    finally:
        await receiver(served, latency_ms=0)
    assert len(await delivered(served, lines)) == 4
    assert took < 3.0  # four receivers of a second each, together: not four seconds one after another
