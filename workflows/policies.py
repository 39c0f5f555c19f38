"""One activity configuration per kind of outside call: workflows spread these and never write a timeout inline;
and when a long-lived workflow continues as new.

A retry policy names only what differs from Temporal's defaults: the first retry 1 s after the first failure,
each pause twice the one before (at most 100 × the first), and no limit on attempts."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

from models.envelope import CARRIER_REJECTED, DATABASE_UNAVAILABLE, ENDPOINT_DISABLED, MAIL_REJECTED, NOT_FOUND


def carrier(max_attempts: int) -> workflow.ActivityConfig:
    """A line's carrier step: backoff from 1 s, doubling, capped at 60 s, LINEUP_CARRIER_MAX_ATTEMPTS
    attempts (decisions.md); a rejection is final at once. Heartbeats find a dead worker in seconds."""
    return {
        "start_to_close_timeout": timedelta(seconds=30),
        "heartbeat_timeout": timedelta(seconds=2),
        "retry_policy": RetryPolicy(
            maximum_interval=timedelta(seconds=60),
            maximum_attempts=max_attempts,
            # Our database away is the workflow's to wait for (CarrierStep), not a carrier attempt.
            non_retryable_error_types=[CARRIER_REJECTED, NOT_FOUND, DATABASE_UNAVAILABLE],
        ),
    }


def first_try(remaining: timedelta) -> workflow.LocalActivityConfig:
    """One attempt of the order's try of a line's carrier step, in its own workflow task (a local activity: no
    task round trip through the server), within what is left of the create's wait. The order paces the next
    attempt with a timer (the SDK's own retries of a local activity do not stop at a schedule-to-close)."""
    return {"start_to_close_timeout": remaining, "retry_policy": RetryPolicy(maximum_attempts=1)}


# The pauses between the order's attempts at a line's carrier step, then the line's workflow takes over.
FIRST_TRY_PAUSES = (timedelta(milliseconds=500), timedelta(seconds=1), timedelta(seconds=2))


# Less than this left of the wait is no attempt (a timeout must be positive; a carrier call takes longer anyway).
SHORTEST_TRY = timedelta(milliseconds=100)


def lookup(budget_seconds: float) -> workflow.ActivityConfig:
    """A lookup a channel is waiting on: retried within its budget (LINEUP_LOOKUP_BUDGET_SECONDS), then the API
    says the system is unavailable."""
    return {
        "schedule_to_close_timeout": timedelta(seconds=budget_seconds),
        "start_to_close_timeout": timedelta(seconds=min(4.0, budget_seconds)),
        "retry_policy": RetryPolicy(
            initial_interval=timedelta(milliseconds=300),
            maximum_interval=timedelta(seconds=2),
            non_retryable_error_types=[CARRIER_REJECTED, NOT_FOUND],
        ),
    }


# Our own database, as local activities: a write costs no task round trip through the server. Retried
# until it answers (a database outage must delay work, not lose it).
STORE: workflow.LocalActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(milliseconds=200),
        maximum_interval=timedelta(seconds=30),
        non_retryable_error_types=[NOT_FOUND],
    ),
}


# Releasing the number a line had before its ported one: until the carrier takes it back (it is idempotent).
RELEASE: workflow.ActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(maximum_interval=timedelta(minutes=10), non_retryable_error_types=[NOT_FOUND]),
}


def port_watch(interval: timedelta, within: timedelta) -> workflow.ActivityConfig:
    """A pending port polled by one activity's retries: every `interval` (no backoff, no attempt limit) for
    `within`, the rest of the port's current age band; "unchanged" and "no answer" are both retried."""
    return {
        "schedule_to_close_timeout": max(within, timedelta(seconds=1)),
        "start_to_close_timeout": timedelta(seconds=30),
        "retry_policy": RetryPolicy(
            initial_interval=interval,
            backoff_coefficient=1.0,
            maximum_interval=interval,
            non_retryable_error_types=[NOT_FOUND],
        ),
    }


# Mail: an SMTP outage delays a message, never loses it. Unlimited attempts, backoff from 1 s doubling to at
# most a minute; only the relay's permanent refusal of this message (5xx) ends it.
MAIL: workflow.ActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=60),
    "heartbeat_timeout": timedelta(seconds=10),
    "retry_policy": RetryPolicy(
        maximum_interval=timedelta(seconds=60), non_retryable_error_types=[MAIL_REJECTED, NOT_FOUND]
    ),
}


# Settling a payment the API charged but did not record: tried for about half an hour (the database may be
# down), after which the payment guard gives the charge back rather than keep money it cannot account for.
SETTLE: workflow.ActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(
        maximum_interval=timedelta(minutes=5), maximum_attempts=12, non_retryable_error_types=[NOT_FOUND]
    ),
}


# A tax calculation quoted from held rates while the carrier was down: registered until the carrier takes it,
# however long the outage lasts (backoff from 1 s, doubling, at most every 5 minutes); its refusal is final.
TAX_REGISTRATION: workflow.ActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=30),
    "heartbeat_timeout": timedelta(seconds=5),
    "retry_policy": RetryPolicy(
        maximum_interval=timedelta(minutes=5), non_retryable_error_types=[CARRIER_REJECTED, NOT_FOUND]
    ),
}


# Giving a charge back: until the gateway takes it, however long that is.
VOID: workflow.ActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(maximum_interval=timedelta(minutes=5)),
}


# Our workflow tasks take milliseconds. When the worker that took one dies, the task goes to another worker
# after this (Temporal's default is 10 s, which a channel waiting on an enrollment hears as a stall).
WORKFLOW_TASK_TIMEOUT = timedelta(seconds=5)


# How long a task waits on its worker's sticky queue before any worker may take it (default 10 s): the server
# does not notice a killed worker, so this is the pause its workflows take after a crash. Under load a task
# that waits longer is taken from the normal queue and replayed, which costs CPU, not correctness.
STICKY_QUEUE_TIMEOUT = timedelta(seconds=1)


# The sweep's database reads: a few seconds, retried a few times (the next sweep comes anyway).
SWEEP: workflow.ActivityConfig = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(maximum_attempts=3),
}


def webhook_first_pause(max_backoff_seconds: float) -> timedelta:
    """Between a delivery's first attempt (the dispatcher's) and its first retry (its delivery workflow's): 2 s."""
    return timedelta(seconds=min(2.0, max_backoff_seconds))


def webhook(give_up_hours: float, max_backoff_seconds: float, timeout_seconds: float = 10.0) -> workflow.ActivityConfig:
    """A webhook delivery's retries, after its first attempt and first pause: backoff from 4 s, doubling, to at
    most an hour, so the pauses from the first attempt are 2, 4, 8 s… for up to 72 hours (issue 21); the whole
    POST ends within its timeout (10 s), so an attempt on a worker that died is retried 5 s after that."""
    first = webhook_first_pause(max_backoff_seconds)
    return {
        "start_to_close_timeout": timedelta(seconds=timeout_seconds + 5),
        # With no attempt limit, this budget ends it: the 72 hours counted from the first attempt.
        "schedule_to_close_timeout": max(timedelta(hours=give_up_hours) - first, timedelta(seconds=1)),
        "retry_policy": RetryPolicy(
            initial_interval=min(2 * first, timedelta(seconds=max_backoff_seconds)),
            maximum_interval=timedelta(seconds=max_backoff_seconds),
            non_retryable_error_types=[ENDPOINT_DISABLED, NOT_FOUND],
        ),
    }


def webhook_first_attempts(timeout_seconds: float) -> workflow.ActivityConfig:
    """The first attempts of a look's deliveries, side by side, each POST within its timeout (10 s): heartbeats
    find a dead worker in seconds, and the batch is made again (skipping what got through) until our database
    answers."""
    return {
        "start_to_close_timeout": timedelta(seconds=timeout_seconds + 20),
        "heartbeat_timeout": timedelta(seconds=5),
        "retry_policy": RetryPolicy(maximum_interval=timedelta(seconds=10)),
    }


def webhook_poll(poll_seconds: float) -> workflow.ActivityConfig:
    """The dispatcher's long poll for queued deliveries: heartbeats find a dead worker in seconds."""
    return {
        "start_to_close_timeout": timedelta(seconds=poll_seconds + 30),
        "heartbeat_timeout": timedelta(seconds=5),
        "retry_policy": RetryPolicy(maximum_interval=timedelta(seconds=10)),
    }


def history_full(limit: int) -> bool:
    info = workflow.info()
    return info.is_continue_as_new_suggested() or info.get_current_history_length() >= limit
