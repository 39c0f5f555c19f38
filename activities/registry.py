"""Builds the activity objects over their adapters: worker.py and the tests share this."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from activities.adapters.carrier import CarrierClient
from activities.carrier import CarrierActivities
from activities.lines import LineRepository
from activities.store import StoreActivities
from models.crypto import cipher_for
from models.settings import Settings


@dataclass
class ActivitySet:
    carrier: CarrierActivities
    store: StoreActivities
    closers: list[Callable[[], Any]]

    def functions(self) -> list[Callable[..., Any]]:
        c, s = self.carrier, self.store
        return [
            c.activate_line, c.submit_port, c.line_inquiry, c.register_tax,
            s.create_customers, s.set_line_status, s.record_activation, s.record_shipment, s.record_port_submitted,
        ]  # fmt: skip

    async def close(self) -> None:
        for close in self.closers:
            await close()


def build_activities(settings: Settings, sessions: async_sessionmaker[AsyncSession]) -> ActivitySet:
    lines = LineRepository(sessions, cipher_for(settings))
    carrier = CarrierClient(settings.carrier_url)
    return ActivitySet(
        carrier=CarrierActivities(carrier, lines),
        store=StoreActivities(sessions),
        closers=[carrier.close],
    )
