"""One activity configuration per kind of external call. Workflows spread these; they never write
timeouts inline."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

CARRIER_REJECTED = "CarrierRejected"
NOT_FOUND = "NotFound"


def carrier(max_attempts: int) -> workflow.ActivityConfig:
    """A line's carrier step: backoff from 1 s, doubling, capped at 60 s, LINEUP_CARRIER_MAX_ATTEMPTS
    attempts (decisions.md); a rejection is final at once. Heartbeats find a dead worker in seconds."""
    return {
        "start_to_close_timeout": timedelta(seconds=30),
        "heartbeat_timeout": timedelta(seconds=3),
        "retry_policy": RetryPolicy(
            initial_interval=timedelta(seconds=1),
            backoff_coefficient=2.0,
            maximum_interval=timedelta(seconds=60),
            maximum_attempts=max_attempts,
            non_retryable_error_types=[CARRIER_REJECTED, NOT_FOUND],
        ),
    }


# A lookup a channel is waiting on: about 10 s in all, then the API says the system is unavailable.
LOOKUP: workflow.ActivityConfig = {
    "schedule_to_close_timeout": timedelta(seconds=10),
    "start_to_close_timeout": timedelta(seconds=4),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(milliseconds=300),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(seconds=2),
        non_retryable_error_types=[CARRIER_REJECTED, NOT_FOUND],
    ),
}

# Our own database, as local activities: a write costs no task round trip through the server. Retried
# until it answers (a database outage must delay work, not lose it).
STORE: workflow.LocalActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=30),
        non_retryable_error_types=[NOT_FOUND],
    ),
}  # fmt: skip

# One poll of a pending port: a single attempt, since the workflow's own timer paces the next one.
PORT_POLL: workflow.ActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(maximum_attempts=1),
}

MAIL_REJECTED = "MailRejected"

# Mail: an SMTP outage delays a message, never loses it. Unlimited attempts, backoff from 1 s doubling to at
# most a minute; only the relay's permanent refusal of this message (5xx) ends it.
MAIL: workflow.ActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=60),
    "heartbeat_timeout": timedelta(seconds=10),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(seconds=60),
        maximum_attempts=0,  # unlimited
        non_retryable_error_types=[MAIL_REJECTED, NOT_FOUND],
    ),
}
