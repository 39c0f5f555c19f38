"""Port-in activities: poll the carrier, resubmit corrected data, persist the port's state."""

from __future__ import annotations

from temporalio import activity

from activities.errors import outside_call
from adapters.carrier import CarrierClient
from models.clock import utcnow
from models.crypto import FieldCipher
from models.messages.porting import PortPoll, PortResubmit, PortView
from persistence.engine import Database
from persistence.porting import get_port

CORRECTABLE = ("account_number", "account_password", "first_name", "last_name", "address_one", "city", "state", "zip")


def view_of(answer: dict[str, object]) -> PortView:
    def text(key: str) -> str | None:
        value = answer.get(key)
        return None if value is None else str(value)

    return PortView(
        status=str(answer["PORTIN_STATUS"]), resolution_code=text("RESOLUTION_CODE"),
        resolution_description=text("RESOLUTION_DESCRIPTION"), carrier_response=text("DESCRIPTION"),
        request_datetime=text("REQUEST_DATETIME"), response_datetime=text("RESPONSE_DATETIME"),
        mdn=text("MDN"), msid=text("MSID"), msl=text("MSL"),
    )  # fmt: skip


class PortActivities:
    def __init__(self, carrier: CarrierClient, db: Database, cipher: FieldCipher) -> None:
        self._carrier, self._db, self._cipher = carrier, db, cipher

    @activity.defn
    async def port_status(self, poll: PortPoll) -> PortView:
        async with outside_call():
            return view_of(await self._carrier.port_status(poll.vendor_code, poll.port_id))

    @activity.defn
    async def resubmit_port(self, resubmit: PortResubmit) -> PortView:
        """Sends the corrected old-account data (read from the database) to the carrier."""
        async with self._db.transaction() as session:
            port = await get_port(session, resubmit.enrollment_id)
        secrets = self._cipher.open(port.secrets)
        corrections = {key: secrets[key] for key in CORRECTABLE if key in secrets}
        body = {"vendor_id": resubmit.vendor_code, "port_id": resubmit.port_id, **corrections}
        async with outside_call():
            return view_of(await self._carrier.update_port(body, key=resubmit.idempotency_key))

    @activity.defn
    async def record_port_status(self, enrollment_id: str, view: PortView) -> None:
        async with self._db.transaction() as session:
            port = await get_port(session, enrollment_id)
            port.status = view.status
            port.resolution_code, port.resolution_description = view.resolution_code, view.resolution_description
            port.carrier_response = (view.carrier_response or "")[:200] or None
            port.responded_at = utcnow()
            session.add(port)
