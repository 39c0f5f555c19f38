"""The carrier's wholesale API: activation, line inquiry, port-in, device compatibility, tax."""

from __future__ import annotations

from typing import Any

from adapters.http import JsonService, Rejected


class CarrierClient(JsonService):
    system = "The carrier"

    async def call(self, path: str, body: dict[str, Any], *, key: str | None = None) -> dict[str, Any]:
        """A carrier answer with STATUSCODE 00, or Rejected with the carrier's code and description."""
        answer = await self.post(path, body, key=key)
        if answer.get("STATUSCODE") != "00":
            raise Rejected(str(answer.get("STATUSCODE")), str(answer.get("DESCRIPTION", "rejected")))
        return answer

    async def activate(self, body: dict[str, Any], *, key: str) -> dict[str, Any]:
        return await self.call("/activations", body, key=key)

    async def line_inquiry(self, body: dict[str, Any]) -> dict[str, Any]:
        """Passes a carrier-level answer through whatever its STATUSCODE (909 included)."""
        return await self.post("/line-inquiry", body)

    async def submit_port(self, body: dict[str, Any], *, key: str) -> dict[str, Any]:
        return await self.call("/ports", body, key=key)

    async def port_status(self, vendor_id: str, port_id: str) -> dict[str, Any]:
        return await self.call("/ports/status", {"vendor_id": vendor_id, "port_id": port_id})

    async def update_port(self, body: dict[str, Any], *, key: str) -> dict[str, Any]:
        return await self.call("/ports/update", body, key=key)

    async def device_compatibility(self, imei: str, carrier: str) -> dict[str, Any]:
        return await self.call("/device-compatibility", {"imei": imei, "carrier": carrier})

    async def validate_port(self, vendor_id: str, port_number: str, zip_code: str | None) -> dict[str, Any]:
        body = {"vendor_id": vendor_id, "port_number": port_number, "zip_code": zip_code}
        return await self.call("/ports/validate", body)

    async def carriers(self, vendor_id: str) -> dict[str, Any]:
        return await self.call("/carriers", {"vendor_id": vendor_id})

    async def tax_quote(self, vendor_id: str, state: str, amount_cents: int) -> dict[str, Any]:
        """The tax the carrier would register for this amount, registering nothing."""
        body = {"vendor_id": vendor_id, "state": state, "amount_cents": amount_cents}
        return await self.call("/tax/quote", body)

    async def register_tax(self, vendor_id: str, state: str, amount_cents: int, *, key: str) -> dict[str, Any]:
        body = {"vendor_id": vendor_id, "state": state, "amount_cents": amount_cents}
        return await self.call("/tax/calculations", body, key=key)

    async def collect_tax(
        self, vendor_id: str, calc_id: str, iccid: str, status: str, *, key: str | None = None
    ) -> dict[str, Any]:
        body = {"vendor_id": vendor_id, "calc_id": calc_id, "iccid": iccid, "status": status}
        return await self.call("/tax/collect", body, key=key)
