"""Every activity the worker runs, built over their adapters for as long as the worker runs (worker.py's
running_worker, which the tests start too), and how each waits out Lineup's own database while it is away."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from activities.devices import DeviceActivities
from activities.eligibility import EligibilityActivities
from activities.enrollment import EnrollmentActivities
from activities.mail import MailActivities
from activities.payment import PaymentActivities
from activities.porting import PortingActivities
from activities.support import SupportActivities
from activities.webhooks import WebhookActivities
from adapters.carrier import CarrierClient
from adapters.nlad import NladClient
from adapters.payments import PaymentGateway
from adapters.smtp import SmtpSender
from adapters.webhooks import WebhookSender
from models.crypto import cipher_for
from models.db import Database, database_unavailable
from models.envelope import DATABASE_UNAVAILABLE
from models.porting import PortOutLimits
from models.settings import Settings

log = logging.getLogger("lineup.activity")

FIRST_PAUSE = 0.5  # seconds between tries while the database is away, doubling…
LONGEST_PAUSE = 8.0  # …up to this
SPARE = timedelta(seconds=1)  # of the attempt's time, kept to fail it cleanly rather than be timed out
BEAT_EVERY = 1.0  # a heartbeat while waiting, so a heartbeat timeout does not end the wait

# Each activity takes its own arguments: the Worker takes them as callables of any signature.
Activity = Callable[..., object]  # type: ignore[explicit-any]


@asynccontextmanager
async def built_activities(settings: Settings, db: Database) -> AsyncIterator[list[Activity]]:
    """Every public coroutine method of every activity object, built over their adapters, whose connections close
    when the block ends. Each is an @activity.defn, which the worker checks as it starts (it refuses a callable that
    is not one), so a helper is kept private."""
    cipher = cipher_for(settings)
    carrier = CarrierClient(settings.systems.carrier_url)
    nlad = NladClient(settings.systems.nlad_url)
    gateway = PaymentGateway(settings.systems.payments_url)
    hooks = settings.webhooks
    webhooks = WebhookSender(
        timeout_seconds=hooks.timeout_seconds,
        production=settings.profile == "production",
        allow_private=hooks.allow_private,
    )
    objects: list[object] = [
        EnrollmentActivities(carrier, db, cipher),
        PortingActivities(carrier, db, cipher, PortOutLimits.of(settings.porting)),
        PaymentActivities(gateway, carrier, db, cipher),
        DeviceActivities(carrier),
        EligibilityActivities(nlad, db, cipher),
        MailActivities(SmtpSender(settings), db, cipher, max_age=timedelta(hours=settings.mail.max_age_hours)),
        SupportActivities(db, cipher),
        WebhookActivities(webhooks, db, cipher, hooks),
    ]
    try:
        yield [
            method
            for activities in objects
            for name, method in inspect.getmembers(activities, inspect.iscoroutinefunction)
            if not name.startswith("_")
        ]
    finally:
        for close in (carrier.close, nlad.close, gateway.close, webhooks.close):
            await close()


class OutageInterceptor(Interceptor):
    """The worker's activities wait out Lineup's own database while it is away (a restart, a failover), within the
    attempt: one log line naming the workflow and the activity, no traceback, no retry attempt spent. Activities are
    idempotent (business keys, insert-or-return), so running the body again is safe; the one effect no key makes
    safe, an e-mail the relay took, has its SENT write wait out the database itself (activities/mail.py). The
    carrier steps turn the database away into their own failure first (models.db.database_outage), which their
    workflow waits out."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _WaitsOutTheDatabase(next)


class _WaitsOutTheDatabase(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:  # type: ignore[explicit-any]  # the SDK's
        pause, told = FIRST_PAUSE, False
        while True:
            try:
                return await self.next.execute_activity(input)
            except Exception as problem:
                if not database_unavailable(problem):
                    raise
                info = activity.info()
                if not told:
                    fields = {
                        "reason": type(problem).__name__,
                        "workflow_id": info.workflow_id,
                        "workflow_type": info.workflow_type,
                        "activity": info.activity_type,
                        "attempt": info.attempt,
                    }
                    log.warning("database unavailable; the activity waits for it", extra={"fields": fields})
                    told = True
                if _time_left(info) < timedelta(seconds=pause):
                    # The attempt's time is nearly out: ended as the outage it is. BENIGN: the SDK logs it at
                    # DEBUG without a traceback; the activity's retry policy tries again after the pause.
                    raise ApplicationError(
                        "The database is unavailable",
                        type=DATABASE_UNAVAILABLE,
                        category=ApplicationErrorCategory.BENIGN,
                        next_retry_delay=timedelta(seconds=pause),
                    ) from None
                await _wait(pause, beating=not info.is_local and info.heartbeat_timeout is not None)
                pause = min(pause * 2, LONGEST_PAUSE)


def _time_left(info: activity.Info) -> timedelta:
    """Until the attempt's own timeout (start-to-close, or schedule-to-close when sooner), less a spare second."""
    now = datetime.now(UTC)
    deadlines = []
    if info.start_to_close_timeout:
        deadlines.append(info.started_time + info.start_to_close_timeout)
    if info.schedule_to_close_timeout:
        deadlines.append(info.scheduled_time + info.schedule_to_close_timeout)
    if not deadlines:
        return timedelta.max
    return min(deadlines) - now - SPARE


async def _wait(seconds: float, *, beating: bool) -> None:
    """Sleeps `seconds`, heartbeating meanwhile when the activity has a heartbeat timeout."""
    if not beating:
        await asyncio.sleep(seconds)
        return
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while (left := until - loop.time()) > 0:
        activity.heartbeat()
        await asyncio.sleep(min(left, BEAT_EVERY))
