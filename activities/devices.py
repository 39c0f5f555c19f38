"""Activities of the devices domain: the carrier's device compatibility check (a lookup a channel waits on)."""

from __future__ import annotations

from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.errors import outside_call
from adapters.carrier import CarrierClient
from adapters.http import Rejected
from models.failures import CARRIER_REJECTED
from models.messages.devices import DeviceQuery


class DeviceActivities:
    def __init__(self, carrier: CarrierClient) -> None:
        self._carrier = carrier

    @activity.defn
    async def device_compatibility(self, query: DeviceQuery) -> dict[str, Any]:
        async with outside_call():
            try:
                return await self._carrier.device_compatibility(query.imei, query.carrier)
            except Rejected as exc:
                # The channel shows the carrier's own words ("Device is blacklisted"), without its code.
                raise ApplicationError(exc.description, exc.code, type=CARRIER_REJECTED, non_retryable=True) from None
