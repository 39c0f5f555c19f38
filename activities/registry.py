"""Every activity the worker runs, built over their adapters for as long as the worker runs (worker.py's
running_worker, which the tests start too)."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta

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
from models.db import Database
from models.settings import Settings

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
        PortingActivities(carrier, db, cipher),
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
