"""MailDeliveryWorkflow alone on the time-skipping server, its `send` activity a stand-in under the real name:
the message is sent once with the outbox's ids; an SMTP outage delays it (retried with backoff to a minute, for
as long as it takes) instead of losing it; the relay's permanent refusal, or a missing outbox row, ends it."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError

from models.envelope import MAIL_REJECTED, NOT_FOUND, UNAVAILABLE
from models.mail import MailDelivery, MailSent
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from workflows.mail import MailDeliveryWorkflow

DELIVERY = MailDelivery(outbox_id=42, idempotency_key="mail-key-1")


async def deliver(env, respond) -> tuple[Calls, MailSent | WorkflowFailureError]:
    calls, queue = Calls(env), fresh_queue("mail")
    send = stand_in("send", calls, respond, takes=[MailDelivery], gives=MailSent)
    async with worker(env, queue, workflows=[MailDeliveryWorkflow], activities=[send]):
        try:
            return calls, await env.client.execute_workflow(
                MailDeliveryWorkflow.run, DELIVERY, id=f"mail-{DELIVERY.idempotency_key}", task_queue=queue
            )
        except WorkflowFailureError as failure:
            return calls, failure


async def test_a_message_is_sent_once_with_the_outbox_ids(time_skipping):
    async def sent(delivery: MailDelivery) -> MailSent:
        return MailSent(f"<{delivery.idempotency_key}@lineup>")

    calls, result = await deliver(time_skipping, sent)
    assert result == MailSent("<mail-key-1@lineup>")
    assert calls.of("send") == [(DELIVERY,)]


async def test_an_smtp_outage_of_an_hour_delays_the_message_and_it_is_sent_when_the_relay_is_back(time_skipping):
    began = await time_skipping.get_current_time()

    async def relay(_: MailDelivery) -> MailSent:
        if await time_skipping.get_current_time() - began < timedelta(hours=1):
            raise ApplicationError("The mail relay is unavailable", type=UNAVAILABLE)
        return MailSent("<late@lineup>")

    calls, result = await deliver(time_skipping, relay)
    assert result == MailSent("<late@lineup>")
    times = [call.at for call in calls.seen]
    gaps = [round((later - earlier).total_seconds()) for earlier, later in itertools.pairwise(times)]
    assert timedelta(hours=1) <= times[-1] - began <= timedelta(hours=1, minutes=1)  # sent within a minute of it
    assert gaps[:6] == [1, 2, 4, 8, 16, 32]  # backoff from a second, doubling…
    assert set(gaps[6:]) == {60}  # …to a minute, however long the outage
    assert 60 <= len(times) <= 70


@pytest.mark.parametrize(
    ("kind", "message"),
    [(MAIL_REJECTED, "550 5.1.1 Mailbox does not exist"), (NOT_FOUND, "Outbox message 42 is missing")],
)
async def test_a_permanent_refusal_or_a_missing_message_ends_it_at_once(time_skipping, kind, message):
    async def refused(_: MailDelivery) -> MailSent:
        raise ApplicationError(message, type=kind)

    calls, outcome = await deliver(time_skipping, refused)
    assert isinstance(outcome, WorkflowFailureError) and isinstance(outcome.cause, ActivityError)
    error = outcome.cause.cause
    assert isinstance(error, ApplicationError) and (error.type, error.message) == (kind, message)
    assert len(calls.of("send")) == 1
