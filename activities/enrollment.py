"""Activities of the enrollment domain: a line's store writes (idempotent, keyed by enrollment id, so a
retried activity or a repeated request finds the row it already wrote), its carrier activation, and the carrier
lookups of the domain (line inquiry, the carrier list). Each reads what it needs of a line from the database by
enrollment id, so no PII passes through workflow history, and calls the carrier with the step's idempotency key."""

from __future__ import annotations

import secrets

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from temporalio import activity

from activities.errors import outside_call
from adapters.carrier import Activation, CarrierClient, LineOrder
from adapters.http import Unavailable
from models.clock import utcnow
from models.crypto import FieldCipher
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
from persistence.engine import Database
from persistence.enrollment import get_line, plan_of
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
            return [plan_of(lines[eid]) for eid in order.enrollment_ids]

    @activity.defn
    async def set_line_status(self, state: LineState) -> None:
        async with self._db.transaction() as session:
            line = await get_line(session, state.enrollment_id)
            if (line.status, line.last_error) != (state.status, state.error):
                line.status, line.last_error, line.status_since = state.status, state.error, utcnow()
                session.add(line)

    @activity.defn
    async def change_sim(self, change: SimChange) -> None:
        """The SIM activate_line sent replaces the attached one (a repeat writes the same values)."""
        async with self._db.transaction() as session:
            line = await get_line(session, change.enrollment_id)
            line.esn, line.iccid = change.esn or line.esn, change.iccid or line.iccid
            session.add(line)

    @activity.defn
    async def record_activation(self, record: ActivationRecord) -> None:
        async with self._db.transaction() as session:
            line = await get_line(session, record.enrollment_id)
            if line.status != LineStatus.ACTIVE:
                done = record.activated
                line.mdn, line.msid, line.msl = done.mdn, done.msid, done.msl
                line.iccid = line.iccid or done.iccid
                line.status, line.last_error, line.status_since = LineStatus.ACTIVE, None, utcnow()
                line.activated_at = utcnow()
                session.add(line)

    @activity.defn
    async def record_shipment(self, enrollment_id: str) -> str:
        """Records the SIM shipment (status SHIPPING); the reference derives from the enrollment id, so a
        retry repeats it."""
        async with self._db.transaction() as session:
            line = await get_line(session, enrollment_id)
            if line.shipment_reference is None:
                line.shipment_reference = f"SHP{enrollment_id[-10:].upper()}"
                line.status, line.status_since = LineStatus.SHIPPING, utcnow()
                session.add(line)
            return line.shipment_reference

    @activity.defn
    async def activate_line(self, call: CarrierCall) -> LineActivated:
        async with self._db.transaction() as session:
            line = await get_line(session, call.enrollment_id)
        pii = self._cipher.open(line.pii)
        order = LineOrder(
            vendor_id=call.vendor_code,
            enrollment_id=line.enrollment_id,
            zip=pii["service_zip"],
            state=pii["service_state"],
            plan_id=str(line.plan_id),
            iccid=line.iccid,
            esn=line.esn,
            esim=line.is_esim,
        )
        async with outside_call():
            done = await self._carrier.activate(order, key=call.idempotency_key)
        if line.is_esim:
            await self._keep_esim_profile(line.enrollment_id, done)
        return LineActivated(mdn=done.mdn, msid=done.msid, msl=done.msl, iccid=done.iccid)

    async def _keep_esim_profile(self, enrollment_id: str, done: Activation) -> None:
        """The activation code downloads the profile to a phone: it is sealed in the line, never returned to
        the workflow (whose history would keep it). A retried activation writes the same profile again."""
        if done.iccid is None or done.activation_code is None:
            raise Unavailable(self._carrier.system, "an eSIM activation without its profile")
        profile = {"iccid": done.iccid, "activation_code": done.activation_code}
        async with self._db.transaction() as session:
            line = await get_line(session, enrollment_id)
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
