"""Activities of the enrollment domain: a line's store writes (idempotent, keyed by enrollment id, so a
retried activity or a repeated request finds the row it already wrote), its carrier activation, and the carrier
lookups of the domain (line inquiry, the carrier list). Each reads what it needs of a line from the database by
enrollment id, so no PII passes through workflow history, and calls the carrier with the step's idempotency key."""

from __future__ import annotations

import secrets

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from temporalio import activity

from activities.errors import database_outage, outside_call
from activities.events import attempt_recorded, refusal_recorded
from adapters.carrier import Activation, CarrierClient, LineOrder
from adapters.http import Unavailable
from models.clock import utcnow
from models.crypto import FieldCipher
from models.documents import EsimDocument, Fields
from models.events import EventType
from models.geography import state_of_zip
from models.messages.enrollment import (
    ActivationRecord,
    CarrierCall,
    CarrierList,
    EnrollmentOrder,
    InquiryRequest,
    LineActivated,
    LineInquiryAnswer,
    LinePlan,
    LineState,
    SimChange,
)
from models.statuses import LineStatus
from models.tables.enrollment import Line
from persistence import events
from persistence.engine import Database
from persistence.enrollment import get_line, plan_of, ported_out
from persistence.errors import RecordNotFound

CUSTOMER_ID_ATTEMPTS = 5


class EnrollmentActivities:
    def __init__(self, carrier: CarrierClient, db: Database, cipher: FieldCipher) -> None:
        self._carrier, self._db, self._cipher = carrier, db, cipher

    @activity.defn
    async def create_customers(self, order: EnrollmentOrder) -> list[LinePlan]:
        """Gives every line of the order its customer record; the account holder's id is each line's cust_id."""
        for _ in range(CUSTOMER_ID_ATTEMPTS):
            try:
                return await self._create_customers(order)
            except IntegrityError:  # two random customer ids met; draw again
                continue
        raise RuntimeError("could not allocate unique customer ids")

    async def _create_customers(self, order: EnrollmentOrder) -> list[LinePlan]:
        async with self._db.transaction() as session:
            query = select(Line).where(col(Line.enrollment_id).in_(order.enrollment_ids))
            lines = {line.enrollment_id: line for line in (await session.exec(query)).all()}
            missing = set(order.enrollment_ids) - set(lines)
            if missing:
                raise RecordNotFound(f"lines {sorted(missing)} were never received")
            holder = lines.get(order.parent_enrollment_id) or await session.get(Line, order.parent_enrollment_id)
            if holder is None:
                raise RecordNotFound(f"account holder {order.parent_enrollment_id} not found")
            for line in sorted(lines.values(), key=lambda item: item is not holder):
                if line.customer_id is None:
                    line.customer_id = f"{secrets.randbelow(9 * 10**8) + 10**8}"
                    line.cust_id = holder.customer_id or line.customer_id
                    line.status, line.status_since = LineStatus.CUSTOMER_CREATED, utcnow()
                    session.add(line)
                    await session.flush()
                    await events.record(session, line.enrollment_id, EventType.CUSTOMER_CREATED)
            return [plan_of(lines[eid]) for eid in order.enrollment_ids]

    @activity.defn
    async def set_line_status(self, state: LineState) -> None:
        await move_line(self._db, state)

    @activity.defn
    async def change_sim(self, change: SimChange) -> None:
        """The SIM activate_line sent replaces the attached one (a repeat writes the same values)."""
        async with self._db.transaction() as session:
            line = await get_line(session, change.enrollment_id)
            replaced = [name for name, value in (("esn", change.esn), ("uiccid", change.iccid)) if value]
            if (change.esn or line.esn, change.iccid or line.iccid) != (line.esn, line.iccid):
                await events.record(session, line.enrollment_id, EventType.SIM_ATTACHED, fields=",".join(replaced))
            line.esn, line.iccid = change.esn or line.esn, change.iccid or line.iccid
            session.add(line)

    async def record_activation(self, record: ActivationRecord) -> None:
        """The line ACTIVE with the carrier's numbers (once: a repeat finds it ACTIVE and writes nothing)."""
        async with self._db.transaction() as session:
            line = await get_line(session, record.enrollment_id)
            if line.status != LineStatus.ACTIVE:
                done = record.activated
                # The carrier gave this line the number: a line that held it (a port from it) no longer does.
                await ported_out(session, done.mdn, to=line.enrollment_id)
                line.mdn, line.msid, line.msl = done.mdn, done.msid, done.msl
                line.iccid = line.iccid or done.iccid
                line.status, line.last_error, line.status_since = LineStatus.ACTIVE, None, utcnow()
                line.activated_at = utcnow()
                session.add(line)
                later = EventType.ACTIVATED_LATER if line.activation_later else EventType.ACTIVATED
                await events.record(session, line.enrollment_id, later, mdn=done.mdn)

    @activity.defn
    async def activate_and_record(self, call: CarrierCall) -> LineActivated:
        """A line's whole activation in one activity (the order's first try, or its workflow's): its shipment and
        ACTIVATING written, the carrier's activation under the step's key, and its record. Each write is
        idempotent and the carrier answers a repeated key with the same line, so a retried attempt repeats
        nothing; a database away is DATABASE_UNAVAILABLE, never a carrier failure."""
        async with database_outage():
            await mark_activating(self._db, call.enrollment_id)
            activated = await self._activate(call)
            await self.record_activation(ActivationRecord(call.enrollment_id, activated))
        return activated

    async def _activate(self, call: CarrierCall) -> LineActivated:
        async with self._db.transaction() as session:
            line = await get_line(session, call.enrollment_id)
        pii = self._cipher.open(line.pii, Fields)
        # new_number_activation_with_zip_code: the new number's area is that ZIP's, not the service address's.
        zip_code = call.zip_code or pii["service_zip"]
        state = (state_of_zip(call.zip_code) if call.zip_code else None) or pii["service_state"]
        order = LineOrder(
            vendor_id=call.vendor_code,
            enrollment_id=line.enrollment_id,
            zip=zip_code,
            state=state,
            plan_id=str(line.plan_id),
            iccid=line.iccid,
            esn=line.esn,
            esim=line.is_esim,
        )
        await attempt_recorded(self._db, call.enrollment_id, EventType.ACTIVATION_ATTEMPTED)
        async with refusal_recorded(self._db, call.enrollment_id), outside_call():
            done = await self._carrier.activate(order, key=call.idempotency_key)
        if line.is_esim:
            await self._keep_esim_profile(line.enrollment_id, done)
        return LineActivated(mdn=done.mdn, msid=done.msid, msl=done.msl, iccid=done.iccid)

    async def _keep_esim_profile(self, enrollment_id: str, done: Activation) -> None:
        """The activation code downloads the profile to a phone: it is sealed in the line, never returned to
        the workflow (whose history would keep it). A retried activation writes the same profile again."""
        if done.iccid is None or done.activation_code is None:
            raise Unavailable(self._carrier.system, "an eSIM activation without its profile")
        profile = EsimDocument(iccid=done.iccid, activation_code=done.activation_code)
        async with self._db.transaction() as session:
            line = await get_line(session, enrollment_id)
            if line.esim_profile is None:
                await events.record(session, enrollment_id, EventType.ESIM_ASSIGNED)
            line.esim_profile = self._cipher.seal(profile)
            session.add(line)

    @activity.defn
    async def line_inquiry(self, request: InquiryRequest) -> LineInquiryAnswer:
        async with self._db.transaction() as session:
            line = await get_line(session, request.enrollment_id)
        flags = {
            "line_inquiry": request.line_inquiry,
            "balance_inquiry": request.balance_inquiry,
            "query_sim_info": request.query_sim_info,
            "subscriber_status": request.subscriber_status,
        }
        async with outside_call():
            return await self._carrier.line_inquiry(vendor_id=request.vendor_code, mdn=line.mdn or "", flags=flags)

    @activity.defn
    async def carriers(self, vendor_code: str) -> CarrierList:
        async with outside_call():
            return await self._carrier.carriers(vendor_code)


def _shipment_reference(enrollment_id: str) -> str:
    return f"SHP{enrollment_id[-10:].upper()}"  # from the enrollment id: a retry repeats it


async def move_line(db: Database, state: LineState) -> None:
    """A line's new status (and error) with its event; a repeat of the same one writes nothing. An ACTIVE line
    keeps its status (and its number) while a port into it runs: only its port's end moves it."""
    async with db.transaction() as session:
        line = await get_line(session, state.enrollment_id)
        if line.status == LineStatus.ACTIVE and state.status != LineStatus.PORTED_OUT:
            return
        if (line.status, line.last_error) != (state.status, state.error):
            await events.line_moved(session, line, state.status, state.error)
            line.status, line.last_error, line.status_since = state.status, state.error, utcnow()
            session.add(line)


async def mark_activating(db: Database, enrollment_id: str) -> None:
    """A carrier step's first writes: the line's shipment recorded, if it ships, and ACTIVATING, unless a retried
    attempt finds it already past that (or it is ACTIVE, and a port into it keeps it so)."""
    async with db.transaction() as session:
        line = await get_line(session, enrollment_id)
        if line.enrollment_type == "SHIPMENT" and line.shipment_reference is None:
            line.shipment_reference = _shipment_reference(enrollment_id)
        if line.status not in (LineStatus.ACTIVE, LineStatus.ACTIVATING, LineStatus.PORT_PENDING):
            await events.line_moved(session, line, LineStatus.ACTIVATING, None)
            line.status, line.last_error, line.status_since = LineStatus.ACTIVATING, None, utcnow()
        session.add(line)
