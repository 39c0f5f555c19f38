"""Activities of the porting domain: submit a line's port, poll the carrier, resubmit corrected data, persist
the port's state, and validate a number for port-in (a lookup)."""

from __future__ import annotations

from temporalio import activity

from activities.errors import outside_call
from adapters.carrier import CarrierClient
from models.clock import utcnow
from models.crypto import FieldCipher
from models.messages.enrollment import CarrierCall, PortRecord, PortSubmitted
from models.messages.porting import PortCheck, PortEligibility, PortPoll, PortResubmit, PortView
from persistence.engine import Database
from persistence.enrollment import get_line
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


class PortingActivities:
    def __init__(self, carrier: CarrierClient, db: Database, cipher: FieldCipher) -> None:
        self._carrier, self._db, self._cipher = carrier, db, cipher

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

    @activity.defn
    async def validate_port(self, check: PortCheck) -> PortEligibility:
        async with outside_call():
            answer = await self._carrier.validate_port(check.vendor_code, check.port_number, check.zip_code)
        return PortEligibility(
            port_number=str(answer.get("PORT_NUMBER") or check.port_number), eligible=answer.get("ELIGIBLE") == "Y",
            current_carrier=str(answer.get("CURRENT_CARRIER", "")),
            current_carrier_name=str(answer.get("CURRENT_CARRIER_NAME", "")), reason=answer.get("REASON") or None,
        )  # fmt: skip
