"""Activities of the devices domain: the carrier's device compatibility check (a lookup a channel waits on)."""

from __future__ import annotations

from temporalio import activity

from adapters.carrier import CarrierClient
from adapters.http import outside_call
from models.devices import DeviceQuery, DeviceReply


class DeviceActivities:
    def __init__(self, carrier: CarrierClient) -> None:
        self._carrier = carrier

    @activity.defn
    async def device_compatibility(self, query: DeviceQuery) -> DeviceReply:
        """The carrier's verdict; a refused device (blacklisted) comes back as it is, with its data, for the
        channel to read why."""
        async with outside_call():
            return await self._carrier.device_compatibility(query.imei, query.carrier)
