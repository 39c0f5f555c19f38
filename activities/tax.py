"""Tax-collection activities: the carrier's tax API and the calculation's row."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from activities.adapters.carrier import CarrierClient
from activities.errors import RecordNotFound, outside_call
from models.db import transaction, utcnow
from models.long_running import TaxCollect, TaxReceipt
from models.tables.payment import TaxCalculation

CARRIER_STATUS = {"temporary": "COLLECTED_TEMPORARY", "final": "COLLECTED_FINAL"}


class TaxActivities:
    def __init__(self, carrier: CarrierClient, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._carrier, self._sessions = carrier, sessions

    @activity.defn
    async def load_tax(self, calc_id: str) -> TaxReceipt:
        async with self._sessions() as session:
            calc = await session.get(TaxCalculation, calc_id)
        if calc is None:
            raise RecordNotFound(f"tax calculation {calc_id} not found")
        return TaxReceipt(calc_id, calc.status, calc.reference_number)

    @activity.defn
    async def collect_tax(self, collect: TaxCollect) -> TaxReceipt:
        async with outside_call():
            answer = await self._carrier.collect_tax(collect.vendor_code, collect.calc_id, collect.iccid, collect.status)
        return TaxReceipt(
            collect.calc_id, CARRIER_STATUS[collect.status], str(answer["REFERENCENUMBER"]), str(answer.get("DESCRIPTION", ""))
        )

    @activity.defn
    async def record_tax(self, receipt: TaxReceipt, iccid: str) -> None:
        async with transaction(self._sessions) as session:
            calc = await session.get(TaxCalculation, receipt.calc_id)
            if calc is None:
                raise RecordNotFound(f"tax calculation {receipt.calc_id} not found")
            calc.status, calc.reference_number, calc.iccid = receipt.status, receipt.reference_number, iccid
            calc.updated_at = utcnow()
            session.add(calc)
