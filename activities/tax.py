"""Tax-collection activities: the carrier's tax API and the calculation's row."""

from __future__ import annotations

from temporalio import activity

from activities.errors import outside_call
from adapters.carrier import CarrierClient
from models.clock import utcnow
from models.messages.payment import TaxCollect, TaxReceipt
from models.statuses import TaxStatus
from models.tables.payment import TaxCalculation
from persistence.engine import Database
from persistence.errors import RecordNotFound

CARRIER_STATUS = {"temporary": TaxStatus.COLLECTED_TEMPORARY, "final": TaxStatus.COLLECTED_FINAL}


class TaxActivities:
    def __init__(self, carrier: CarrierClient, db: Database) -> None:
        self._carrier, self._db = carrier, db

    @activity.defn
    async def load_tax(self, calc_id: str) -> TaxReceipt:
        async with self._db.transaction() as session:
            calc = await session.get(TaxCalculation, calc_id)
        if calc is None:
            raise RecordNotFound(f"tax calculation {calc_id} not found")
        return TaxReceipt(calc_id, TaxStatus(calc.status), calc.reference_number)

    @activity.defn
    async def collect_tax(self, collect: TaxCollect) -> TaxReceipt:
        async with outside_call():
            answer = await self._carrier.collect_tax(
                collect.vendor_code, collect.calc_id, collect.iccid, collect.status, key=collect.key or None
            )
        return TaxReceipt(
            collect.calc_id,
            CARRIER_STATUS[collect.status],
            str(answer["REFERENCENUMBER"]),
            str(answer.get("DESCRIPTION", "")),
        )

    @activity.defn
    async def record_tax(self, receipt: TaxReceipt, iccid: str) -> None:
        async with self._db.transaction() as session:
            calc = await session.get(TaxCalculation, receipt.calc_id)
            if calc is None:
                raise RecordNotFound(f"tax calculation {receipt.calc_id} not found")
            calc.status, calc.reference_number, calc.iccid = receipt.status, receipt.reference_number, iccid
            calc.updated_at = utcnow()
            session.add(calc)
