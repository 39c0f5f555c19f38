"""Builds the activity objects over their adapters: worker.py and the tests share this."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from activities.adapters.carrier import CarrierClient
from activities.adapters.nlad import NladClient
from activities.adapters.smtp import SmtpSender
from activities.carrier import CarrierActivities
from activities.eligibility import NladActivities
from activities.lines import LineRepository
from activities.mail import MailActivities
from activities.porting import PortActivities
from activities.store import StoreActivities
from activities.tax import TaxActivities
from models.crypto import cipher_for
from models.settings import Settings


@dataclass
class ActivitySet:
    objects: list[object]
    closers: list[Callable[[], Awaitable[Any]]] = field(default_factory=list)

    def functions(self) -> list[Callable[..., Any]]:
        """Every @activity.defn method of every activity object."""
        return [
            getattr(obj, name)
            for obj in self.objects
            for name in dir(type(obj))
            if hasattr(getattr(type(obj), name), "__temporal_activity_definition")
        ]

    async def close(self) -> None:
        for close in self.closers:
            await close()


def build_activities(settings: Settings, sessions: async_sessionmaker[AsyncSession]) -> ActivitySet:
    lines = LineRepository(sessions, cipher_for(settings))
    carrier = CarrierClient(settings.carrier_url)
    nlad = NladClient(settings.nlad_url)
    objects: list[object] = [
        CarrierActivities(carrier, lines),
        StoreActivities(sessions),
        PortActivities(carrier, lines, sessions),
        TaxActivities(carrier, sessions),
        NladActivities(nlad, sessions, lines.cipher),
        MailActivities(SmtpSender(settings), sessions, lines.cipher),
    ]
    return ActivitySet(objects, closers=[carrier.close, nlad.close])
