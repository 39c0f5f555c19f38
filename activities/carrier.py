"""Carrier activities of a line's steps and a payment's tax: each reads what it needs of a line from the
database by enrollment id, so no PII passes through workflow history, and calls the carrier with the step's
idempotency key."""

from __future__ import annotations

from typing import Any

from temporalio import activity

from activities.errors import outside_call
from adapters.carrier import CarrierClient
from models.crypto import FieldCipher
from models.messages.enrollment import CarrierCall, LineActivated, PortSubmitted
from models.messages.payment import TaxQuote, TaxQuoted
from persistence.engine import Database
from persistence.enrollment import get_line
from persistence.porting import get_port


class CarrierActivities:
    def __init__(self, carrier: CarrierClient, db: Database, cipher: FieldCipher) -> None:
        self._carrier, self._db, self._cipher = carrier, db, cipher

    @activity.defn
    async def activate_line(self, call: CarrierCall) -> LineActivated:
        async with self._db.transaction() as session:
            line = await get_line(session, call.enrollment_id)
        pii = self._cipher.open(line.pii)
        body = {
            "vendor_id": call.vendor_code, "enrollment_id": line.enrollment_id, "zip": pii["service_zip"],
            "state": pii["service_state"], "plan_id": str(line.plan_id), "iccid": line.iccid, "esn": line.esn,
            "esim": line.is_esim,
        }  # fmt: skip
        async with outside_call():
            answer = await self._carrier.activate(body, key=call.idempotency_key)
        if line.is_esim:
            await self._keep_esim_profile(line.enrollment_id, answer)
        return LineActivated(mdn=answer["MDN"], msid=answer["MSID"], msl=answer["MSL"], iccid=answer.get("ICCID"))

    async def _keep_esim_profile(self, enrollment_id: str, answer: dict[str, Any]) -> None:
        """The activation code downloads the profile to a phone: it is sealed in the line, never returned to
        the workflow (whose history would keep it). A retried activation writes the same profile again."""
        profile = {"iccid": str(answer["ICCID"]), "activation_code": str(answer["ACTIVATION_CODE"])}
        async with self._db.transaction() as session:
            line = await get_line(session, enrollment_id)
            line.esim_profile = self._cipher.seal(profile)
            session.add(line)

    @activity.defn
    async def submit_port(self, call: CarrierCall) -> PortSubmitted:
        async with self._db.transaction() as session:
            line = await get_line(session, call.enrollment_id)
            port = await get_port(session, call.enrollment_id)
        body = {
            "vendor_id": call.vendor_code, "enrollment_id": line.enrollment_id, "port_number": port.port_number,
            "iccid": line.iccid or line.esn, "current_carrier": port.current_carrier, **self._cipher.open(port.secrets),
        }  # fmt: skip
        async with outside_call():
            answer = await self._carrier.submit_port(body, key=call.idempotency_key)
        return PortSubmitted(port_id=answer["PORT_ID"], status=answer["PORTIN_STATUS"])

    @activity.defn
    async def register_tax(self, quote: TaxQuote) -> TaxQuoted:
        async with outside_call():
            answer = await self._carrier.register_tax(
                quote.vendor_code, quote.state, quote.amount_cents, key=quote.idempotency_key
            )
        return TaxQuoted(calc_id=answer["CALCID"], tax_cents=int(answer["TAX_AMOUNT_CENTS"]))
