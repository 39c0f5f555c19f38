"""The carrier lookups a channel waits on (LookupWorkflow runs one of them under the LOOKUP budget): line
inquiry, device compatibility, port validation, the carrier list and tax estimates. None changes
anything at the carrier, so none needs an idempotency key."""

from __future__ import annotations

from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.errors import outside_call
from adapters.carrier import CarrierClient
from adapters.http import Rejected
from models.failures import CARRIER_REJECTED
from models.messages.devices import DeviceQuery
from models.messages.enrollment import CarrierEntry, CarrierList, InquiryRequest
from models.messages.payment import TaxEstimate, TaxEstimateQuery, TaxItem
from models.messages.porting import PortCheck, PortEligibility
from persistence.engine import Database
from persistence.enrollment import get_line


class LookupActivities:
    def __init__(self, carrier: CarrierClient, db: Database) -> None:
        self._carrier, self._db = carrier, db

    @activity.defn
    async def line_inquiry(self, request: InquiryRequest) -> dict[str, Any]:
        async with self._db.transaction() as session:
            line = await get_line(session, request.enrollment_id)
        body = {
            "vendor_id": request.vendor_code, "mdn": line.mdn or "", "line_inquiry": request.line_inquiry,
            "balance_inquiry": request.balance_inquiry, "query_sim_info": request.query_sim_info,
            "subscriber_status": request.subscriber_status,
        }  # fmt: skip
        async with outside_call():
            return await self._carrier.line_inquiry(body)

    @activity.defn
    async def device_compatibility(self, query: DeviceQuery) -> dict[str, Any]:
        async with outside_call():
            try:
                return await self._carrier.device_compatibility(query.imei, query.carrier)
            except Rejected as exc:
                # The channel shows the carrier's own words ("Device is blacklisted"), without its code.
                raise ApplicationError(exc.description, exc.code, type=CARRIER_REJECTED, non_retryable=True) from None

    @activity.defn
    async def validate_port(self, check: PortCheck) -> PortEligibility:
        async with outside_call():
            answer = await self._carrier.validate_port(check.vendor_code, check.port_number, check.zip_code)
        return PortEligibility(
            port_number=str(answer.get("PORT_NUMBER") or check.port_number), eligible=answer.get("ELIGIBLE") == "Y",
            current_carrier=str(answer.get("CURRENT_CARRIER", "")),
            current_carrier_name=str(answer.get("CURRENT_CARRIER_NAME", "")), reason=answer.get("REASON") or None,
        )  # fmt: skip

    @activity.defn
    async def carriers(self, vendor_code: str) -> CarrierList:
        async with outside_call():
            answer = await self._carrier.carriers(vendor_code)
        return CarrierList(
            [CarrierEntry(str(c["CARRIER_ID"]), str(c["CARRIER"]), str(c["CARRIER_NAME"])) for c in answer["CARRIERS"]]
        )

    @activity.defn
    async def tax_estimate(self, query: TaxEstimateQuery) -> TaxEstimate:
        async with outside_call():
            answer = await self._carrier.tax_quote(query.vendor_code, query.state, query.amount_cents)
        items = [
            TaxItem(str(item["TAX_NAME"]), int(item["TAX_AMOUNT_CENTS"])) for item in answer.get("TAX_BREAKUP", [])
        ]
        return TaxEstimate(int(answer["TAX_AMOUNT_CENTS"]), items)
