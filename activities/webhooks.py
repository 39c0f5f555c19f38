"""The webhooks domain's activities: find the deliveries the event log queued (a long poll, so a new event goes
out in about a second without a workflow task every second), make the first attempt of a look's deliveries
together in one activity (one task round trip for them all, each POST bounded by LINEUP_WEBHOOK_TIMEOUT_SECONDS),
make one retry of one delivery, and give a delivery up (disabling an endpoint that has failed for the whole budget,
with the reason support sees). A first attempt and a retry are the same code: the row's status is read and the
attempt counted before the POST, so an activity repeated after a worker died sends nothing that got through."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from adapters.webhooks import Answer, WebhookSender
from models.crypto import FieldCipher
from models.db import Database
from models.envelope import ENDPOINT_DISABLED, NOT_FOUND
from models.events import LineEvent, WebhookDelivery, WebhookEndpoint, body_of
from models.settings import WebhookSettings
from models.types import utcnow
from models.webhooks import DeliveryJob, Dispatch, queued

log = logging.getLogger("lineup.webhooks")

UNDELIVERED = "WebhookUndelivered"
LOOK_EVERY = 0.5  # seconds between two looks of the long poll
HEARTBEAT_EVERY = 1.0  # seconds, while a look's first attempts run (the policy's heartbeat timeout is longer)


class WebhookActivities:
    def __init__(self, sender: WebhookSender, db: Database, cipher: FieldCipher, settings: WebhookSettings) -> None:
        self._sender, self._db, self._cipher, self._settings = sender, db, cipher, settings

    @activity.defn
    async def queued_deliveries(self, dispatch: Dispatch) -> list[DeliveryJob]:
        """The deliveries waiting for their first attempt, as soon as there are any (or none after poll_seconds): at
        most LINEUP_WEBHOOK_CONCURRENCY, whose first attempts `first_attempts` makes together; the next look takes
        the rest."""
        ends = time.monotonic() + dispatch.poll_seconds
        while True:
            async with self._db.transaction(write=False) as session:
                found = await queued(session, self._settings.concurrency)
            if found or time.monotonic() >= ends or activity.is_worker_shutdown():
                hooks = self._settings
                budget = (hooks.give_up_hours, hooks.max_backoff_seconds)
                return [DeliveryJob(id_, round_, *budget, key, hooks.timeout_seconds) for id_, round_, key in found]
            activity.heartbeat()
            await asyncio.sleep(LOOK_EVERY)

    @activity.defn
    async def first_attempts(self, jobs: list[DeliveryJob]) -> list[DeliveryJob]:
        """The first attempt of each of a look's deliveries, all at once (a slow receiver holds the look no longer
        than its POST's timeout); each row taken (SENDING) as its attempt is counted. Gives the deliveries whose
        attempt failed, for a retry workflow each. Heartbeats, so a dead worker's batch is tried again in seconds,
        and then skips what got through."""
        beating = asyncio.create_task(_heartbeat())
        try:
            tried = await asyncio.gather(*(self._first_attempt(job) for job in jobs), return_exceptions=True)
        finally:
            beating.cancel()
        for outcome in tried:
            if isinstance(outcome, BaseException):
                raise outcome  # our database away: the whole batch again, which skips what got through
        return [job for job, retry in zip(jobs, tried, strict=True) if retry is True]

    @activity.defn
    async def deliver(self, job: DeliveryJob) -> str:
        """One retry: the event's body, signed now, POSTed once. A failure raises (retried by the policy), as one
        WARNING line and no traceback: a receiver's failure is no defect."""
        status, answer = await self._attempt(job)
        if answer is None or status == "DELIVERED":
            return status
        _log_failure(job, answer, status)
        # BENIGN: the SDK logs it at DEBUG without a traceback; the line above says what happened.
        benign = ApplicationErrorCategory.BENIGN
        if status == "FAILED":
            raise ApplicationError(
                "the endpoint was disabled", type=ENDPOINT_DISABLED, non_retryable=True, category=benign
            )
        raise ApplicationError(
            f"the receiver did not take the delivery ({_said(answer)})", type=UNDELIVERED, category=benign
        )

    @activity.defn
    async def give_up(self, job: DeliveryJob) -> None:
        """The delivery's budget is spent: it FAILED, and its endpoint, failing all that time, is disabled."""
        async with self._db.transaction() as session:
            delivery = await session.get(WebhookDelivery, job.delivery_id)
            if delivery is None or delivery.round != job.round or delivery.status in ("DELIVERED", "SKIPPED"):
                return
            endpoint = await session.get(WebhookEndpoint, delivery.endpoint_id)
            assert endpoint is not None
            delivery.status = "FAILED"
            # Every attempt of this delivery failed for its whole budget; if none of the endpoint's has succeeded
            # since its first, the endpoint has been failing all that time.
            first, since = delivery.first_attempt_at, endpoint.failing_since
            if endpoint.active and first is not None and since is not None and since <= first:
                _disable(endpoint, delivery)

    async def _first_attempt(self, job: DeliveryJob) -> bool:
        """One delivery's first attempt; True when it failed and is to be retried."""
        try:
            status, answer = await self._attempt(job)
        except ApplicationError as error:
            if error.type == NOT_FOUND:  # deleted with its endpoint since the look: nothing to send
                return False
            raise
        if answer is None or status == "DELIVERED":
            return False
        _log_failure(job, answer, status)
        return status == "RETRYING"

    async def _attempt(self, job: DeliveryJob) -> tuple[str, Answer | None]:
        """One attempt, a first or a retry: the delivery's status after it, and the receiver's answer (None: nothing
        was sent, it was delivered already, skipped, or a later round took over). The attempt is counted before the
        POST and its outcome recorded when it ends or is cancelled (a worker stopping, the activity timed out), so
        a receiver too slow to ever answer is counted, and disabled by its budget like any failing one."""
        begun = await self._begin(job)
        if isinstance(begun, str):
            return begun, None
        url, secret, body = begun
        try:
            answer = await self._sender.post(url, body, secret=secret, timestamp=int(time.time()))
        except asyncio.CancelledError:
            # Recorded even so (shielded: the cancellation is for the POST, not for its record).
            await asyncio.shield(self._settle(job, Answer(None, "attempt cancelled before an answer")))
            raise
        return await self._settle(job, answer), answer

    async def _begin(self, job: DeliveryJob) -> str | tuple[str, str, bytes]:
        """The attempt counted (SENDING), and what to send; or the delivery's status when nothing is to be sent."""
        async with self._db.transaction() as session:
            delivery = await session.get(WebhookDelivery, job.delivery_id)
            if delivery is None:
                raise ApplicationError(f"delivery {job.delivery_id} not found", type=NOT_FOUND, non_retryable=True)
            if delivery.round != job.round or delivery.status == "DELIVERED":
                return delivery.status  # a later round took over, or a repeat of an attempt that got through
            endpoint = await session.get(WebhookEndpoint, delivery.endpoint_id)
            event = await session.get(LineEvent, delivery.event_id)
            assert endpoint is not None and event is not None  # foreign keys
            if not endpoint.active:
                delivery.status = "SKIPPED"
                return delivery.status
            now = utcnow()
            if delivery.status == "SENDING" and delivery.attempts and delivery.last_attempt_at:
                # The last attempt never settled (its worker died mid-POST): it failed, as far as anyone knows.
                endpoint.failing_since = endpoint.failing_since or delivery.last_attempt_at
            delivery.attempts += 1
            delivery.status, delivery.last_attempt_at = "SENDING", now
            delivery.first_attempt_at = delivery.first_attempt_at or now
            return endpoint.url, self._cipher.decrypt(endpoint.secret), body_of(event)

    async def _settle(self, job: DeliveryJob, answer: Answer) -> str:
        """The attempt's outcome: DELIVERED, or RETRYING (FAILED, its endpoint disabled, past the budget)."""
        async with self._db.transaction() as session:
            delivery = await session.get(WebhookDelivery, job.delivery_id)
            assert delivery is not None
            endpoint = await session.get(WebhookEndpoint, delivery.endpoint_id)
            assert endpoint is not None
            now = utcnow()
            delivery.last_status, delivery.last_answer = answer.status, answer.text
            if answer.delivered:
                delivery.status, delivery.delivered_at = "DELIVERED", now
                endpoint.failing_since = None
            else:
                delivery.status = "RETRYING"
                endpoint.failing_since = endpoint.failing_since or delivery.last_attempt_at or now
                if now - endpoint.failing_since >= timedelta(hours=job.give_up_hours):
                    _disable(endpoint, delivery)
            return delivery.status


def _log_failure(job: DeliveryJob, answer: Answer, status: str) -> None:
    """A failed attempt (RETRYING, or FAILED with its endpoint disabled), in one line."""
    fields = {"delivery_id": job.delivery_id, "round": job.round, "reason": _said(answer), "status": status}
    if activity.in_activity():
        fields |= {"attempt": activity.info().attempt, "workflow_id": activity.info().workflow_id}
    log.warning("webhook delivery failed", extra={"fields": fields})


def _said(answer: Answer) -> str:
    return f"HTTP {answer.status}" if answer.status is not None else answer.text


async def _heartbeat() -> None:
    """While a batch's POSTs run: Temporal hears the worker is alive (and the worker hears of a cancellation)."""
    while activity.in_activity():
        activity.heartbeat()
        await asyncio.sleep(HEARTBEAT_EVERY)


def _disable(endpoint: WebhookEndpoint, delivery: WebhookDelivery) -> None:
    """The endpoint disabled and the delivery FAILED, saying why in words support reads on the console."""
    since = f"{endpoint.failing_since:%Y-%m-%d %H:%M} UTC" if endpoint.failing_since else "long"
    said = f"HTTP {delivery.last_status}" if delivery.last_status is not None else (delivery.last_answer or "no answer")
    endpoint.active = False
    endpoint.disabled_reason = f"Every delivery failed since {since}; last answer: {said}"[:300]
    delivery.status = "FAILED"
