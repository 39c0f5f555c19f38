"""Carrier activities: each reads what it needs of a line from the database by enrollment id, so no
PII passes through workflow history, and calls the carrier with the step's idempotency key."""

from __future__ import annotations

from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.adapters.carrier import CarrierClient
from activities.adapters.http import Rejected
from activities.errors import outside_call
from activities.lines import LineRepository
from models.messages import (
    CarrierCall,
    DeviceQuery,
    InquiryRequest,
    LineActivated,
    PortSubmitted,
    TaxQuote,
    TaxQuoted,
)
from workflows.policies import CARRIER_REJECTED


class CarrierActivities:
    def __init__(self, carrier: CarrierClient, lines: LineRepository) -> None:
        self._carrier, self._lines = carrier, lines

    @activity.defn
    async def activate_line(self, call: CarrierCall) -> LineActivated:
        line = await self._lines.line(call.enrollment_id)
        pii = self._lines.open(line.pii)
        body = {
            "vendor_id": call.vendor_code, "enrollment_id": line.enrollment_id, "zip": pii["service_zip"],
            "state": pii["service_state"], "plan_id": str(line.plan_id), "iccid": line.iccid, "esn": line.esn,
        }  # fmt: skip
        async with outside_call():
            answer = await self._carrier.activate(body, key=call.idempotency_key)
        return LineActivated(mdn=answer["MDN"], msid=answer["MSID"], msl=answer["MSL"], iccid=answer.get("ICCID"))

    @activity.defn
    async def submit_port(self, call: CarrierCall) -> PortSubmitted:
        line = await self._lines.line(call.enrollment_id)
        port = await self._lines.port(call.enrollment_id)
        secrets = self._lines.open(port.secrets)
        body = {
            "vendor_id": call.vendor_code, "enrollment_id": line.enrollment_id, "port_number": port.port_number,
            "iccid": line.iccid or line.esn, "current_carrier": port.current_carrier, **secrets,
        }  # fmt: skip
        async with outside_call():
            answer = await self._carrier.submit_port(body, key=call.idempotency_key)
        return PortSubmitted(port_id=answer["PORT_ID"], status=answer["PORTIN_STATUS"])

    @activity.defn
    async def line_inquiry(self, request: InquiryRequest) -> dict[str, Any]:
        line = await self._lines.line(request.enrollment_id)
        body = {
            "vendor_id": request.vendor_code, "mdn": line.mdn or "", "line_inquiry": request.line_inquiry,
            "balance_inquiry": request.balance_inquiry, "query_sim_info": request.query_sim_info,
            "subscriber_status": request.subscriber_status,
        }  # fmt: skip
        async with outside_call():
            return await self._carrier.line_inquiry(body)

    @activity.defn
    async def register_tax(self, quote: TaxQuote) -> TaxQuoted:
        async with outside_call():
            answer = await self._carrier.register_tax(
                quote.vendor_code, quote.state, quote.amount_cents, key=quote.idempotency_key
            )
        return TaxQuoted(calc_id=answer["CALCID"], tax_cents=int(answer["TAX_AMOUNT_CENTS"]))

    @activity.defn
    async def device_compatibility(self, query: DeviceQuery) -> dict[str, Any]:
        async with outside_call():
            try:
                return await self._carrier.device_compatibility(query.imei, query.carrier)
            except Rejected as exc:
                # The channel shows the carrier's own words ("Device is blacklisted"), without its code.
                raise ApplicationError(exc.description, exc.code, type=CARRIER_REJECTED, non_retryable=True) from None
