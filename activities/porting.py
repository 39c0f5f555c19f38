"""Activities of the porting domain: submit a line's port, poll the carrier, resubmit corrected data, persist
the port's state, and validate a number for port-in (a lookup)."""

from __future__ import annotations

from temporalio import activity

from activities.errors import outside_call
from adapters.carrier import CarrierClient, PortOrder
from models.clock import utcnow
from models.crypto import FieldCipher
from models.messages.enrollment import CarrierCall, PortRecord, PortSubmitted
from models.messages.porting import PortCheck, PortEligibility, PortPoll, PortResubmit, PortView
from persistence.engine import Database
from persistence.enrollment import get_line
from persistence.porting import get_port

CORRECTABLE = ("account_number", "account_password", "first_name", "last_name", "address_one", "city", "state", "zip")


class PortingActivities:
    def __init__(self, carrier: CarrierClient, db: Database, cipher: FieldCipher) -> None:
        self._carrier, self._db, self._cipher = carrier, db, cipher

    @activity.defn
    async def submit_port(self, call: CarrierCall) -> PortSubmitted:
        async with self._db.transaction() as session:
            line = await get_line(session, call.enrollment_id)
            port = await get_port(session, call.enrollment_id)
        order = PortOrder(
            vendor_id=call.vendor_code,
            enrollment_id=line.enrollment_id,
            port_number=port.port_number,
            iccid=line.iccid or line.esn,
            current_carrier=port.current_carrier,
            old_account=self._cipher.open(port.secrets),
        )
        async with outside_call():
            return await self._carrier.submit_port(order, key=call.idempotency_key)

    @activity.defn
    async def record_port_submitted(self, record: PortRecord) -> None:
        async with self._db.transaction() as session:
            port = await get_port(session, record.enrollment_id)
            if port.carrier_port_id is None:
                port.carrier_port_id, port.status = record.port_id, record.status
                port.requested_at = utcnow()
                session.add(port)

    @activity.defn
    async def port_status(self, poll: PortPoll) -> PortView:
        async with outside_call():
            return await self._carrier.port_status(poll.vendor_code, poll.port_id)

    @activity.defn
    async def resubmit_port(self, resubmit: PortResubmit) -> PortView:
        """Sends the corrected old-account data (read from the database) to the carrier."""
        async with self._db.transaction() as session:
            port = await get_port(session, resubmit.enrollment_id)
        secrets = self._cipher.open(port.secrets)
        corrections = {key: secrets[key] for key in CORRECTABLE if key in secrets}
        async with outside_call():
            return await self._carrier.update_port(
                resubmit.vendor_code, resubmit.port_id, corrections, key=resubmit.idempotency_key
            )

    @activity.defn
    async def record_port_status(self, enrollment_id: str, view: PortView) -> None:
        async with self._db.transaction() as session:
            port = await get_port(session, enrollment_id)
            port.status = view.status
            port.resolution_code, port.resolution_description = view.resolution_code, view.resolution_description
            port.carrier_response = (view.carrier_response or "")[:200] or None
            port.responded_at = utcnow()
            session.add(port)

    @activity.defn
    async def validate_port(self, check: PortCheck) -> PortEligibility:
        async with outside_call():
            return await self._carrier.validate_port(check.vendor_code, check.port_number, check.zip_code)
