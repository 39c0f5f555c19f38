"""Activities of the porting domain: submit a line's port, poll the carrier, resubmit corrected data, persist
the port's state, and validate a number for port-in (a lookup)."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities.enrollment import mark_activating, move_line
from activities.errors import outside_call
from activities.events import refusal_recorded
from adapters.carrier import CarrierClient, PortOrder
from adapters.http import Rejected, Unavailable
from models.clock import utcnow
from models.crypto import FieldCipher
from models.documents import Fields
from models.events import EventType
from models.failures import PORT_UNCHANGED, UNAVAILABLE
from models.messages.enrollment import CarrierCall, LineState, PortRecord, PortSubmitted
from models.messages.porting import (
    PortCheck,
    PortEligibility,
    PortPoll,
    PortResubmit,
    PortView,
    PortWatchPoll,
    same_state,
)
from models.statuses import LineStatus, PortStatus
from observability.metrics import port_completed
from persistence import events
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
            old_account=self._cipher.open(port.secrets, Fields),
        )
        async with refusal_recorded(self._db, call.enrollment_id), outside_call():  # issue 21: the event log
            return await self._carrier.submit_port(order, key=call.idempotency_key)

    @activity.defn
    async def submit_and_record(self, call: CarrierCall) -> PortSubmitted:
        """A one-step PORTIN line's submission (LineStart.one_step): its shipment and ACTIVATING written, the
        port submitted under the step's key, recorded, and the line PORT_PENDING, in one activity. A retried
        attempt repeats nothing: the carrier answers a repeated key with the same port."""
        await mark_activating(self._db, call.enrollment_id)
        submitted = await self.submit_port(call)
        await self.record_port_submitted(PortRecord(call.enrollment_id, submitted.port_id, submitted.status))
        await move_line(self._db, LineState(call.enrollment_id, LineStatus.PORT_PENDING, None))
        return submitted

    @activity.defn
    async def record_port_submitted(self, record: PortRecord) -> None:
        async with self._db.transaction() as session:
            port = await get_port(session, record.enrollment_id)
            if port.carrier_port_id is None:
                port.carrier_port_id, port.status = record.port_id, record.status
                port.requested_at = utcnow()
                session.add(port)
                await events.record(session, record.enrollment_id, EventType.PORT_SUBMITTED)  # issue 21: event log
                # A line ported in after creation (create_portin_v2…) is a PORTIN line from its submission on.
                line = await get_line(session, record.enrollment_id)
                if line.activation_type != "PORTIN":
                    line.activation_type = "PORTIN"
                    session.add(line)

    @activity.defn
    async def port_status(self, poll: PortPoll) -> PortView:
        async with outside_call():
            return await self._carrier.port_status(poll.vendor_code, poll.port_id)

    @activity.defn
    async def watch_port(self, poll: PortWatchPoll) -> PortView:
        """One poll of a pending port, repeated by Temporal's retries at the poll interval: no workflow task
        and no history event while the port stays as the workflow knows it. A new state is recorded here and
        returned. Both "no news" and "no answer" are benign failures (no traceback in the worker's log); no
        heartbeat, which would cost a server call per poll."""
        try:
            view = await self._carrier.port_status(poll.vendor_code, poll.port_id)
        except (Unavailable, Rejected) as problem:  # the next retry asks again, as the next poll would
            activity.logger.warning("port %s status poll failed: %s", poll.enrollment_id, problem)  # one line, no trace
            raise ApplicationError(
                f"port {poll.enrollment_id}: {problem}", type=UNAVAILABLE, category=ApplicationErrorCategory.BENIGN
            ) from None
        if same_state(view, poll.known):
            raise ApplicationError(
                f"port {poll.enrollment_id} is still {view.status}",
                type=PORT_UNCHANGED,
                category=ApplicationErrorCategory.BENIGN,
            )
        await self._record(poll.enrollment_id, view)
        return view

    @activity.defn
    async def resubmit_port(self, resubmit: PortResubmit) -> PortView:
        """Sends the corrected old-account data (read from the database) to the carrier."""
        async with self._db.transaction() as session:
            port = await get_port(session, resubmit.enrollment_id)
        secrets = self._cipher.open(port.secrets, Fields)
        corrections = {key: secrets[key] for key in CORRECTABLE if key in secrets}
        async with outside_call():
            return await self._carrier.update_port(
                resubmit.vendor_code, resubmit.port_id, corrections, key=resubmit.idempotency_key
            )

    @activity.defn
    async def record_port_status(self, enrollment_id: str, view: PortView) -> None:
        await self._record(enrollment_id, view)

    async def _record(self, enrollment_id: str, view: PortView) -> None:
        async with self._db.transaction() as session:
            port = await get_port(session, enrollment_id)
            await events.port_moved(session, port, view.status, view.resolution_description)  # issue 21: event log
            if view.status == PortStatus.COMPLETED != port.status and port.requested_at:  # issue 30: its time
                meter = activity.metric_meter() if activity.in_activity() else None
                port_completed((utcnow() - port.requested_at).total_seconds(), meter)
            port.status = view.status
            port.resolution_code, port.resolution_description = view.resolution_code, view.resolution_description
            port.carrier_response = (view.carrier_response or "")[:200] or None
            port.responded_at = utcnow()
            session.add(port)

    @activity.defn
    async def validate_port(self, check: PortCheck) -> PortEligibility:
        async with outside_call():
            return await self._carrier.validate_port(check.vendor_code, check.port_number, check.zip_code)
