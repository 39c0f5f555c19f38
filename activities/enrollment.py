"""The enrollment domain's activities: a line's store writes (idempotent, keyed by enrollment id, so a retried
activity or a repeated request finds the row it already wrote), its carrier activation (a line's own, or an
order's first try of all its lines at once, in one statement per kind of row), an eSIM profile reserved
before activation, and the domain's carrier lookups. Each reads what it needs of a line by enrollment id, so no
PII passes through workflow history, and calls the carrier with the step's idempotency key; a failed call
records its attempt and the carrier's refusal in the event log."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio import activity
from temporalio.exceptions import ApplicationError

from adapters.carrier import Activation, CarrierClient, LineOrder
from adapters.http import Unavailable, outside_call
from models.address import state_of_zip
from models.crypto import EsimDocument, FieldCipher, Fields
from models.db import Database, Session, database_outage
from models.enrollment.lines import (
    INQUIRY_FLAGS,
    Activating,
    CarrierCall,
    CarrierList,
    EsimAssigned,
    EsimRequest,
    FirstTries,
    FirstTryOutcome,
    InquiryRequest,
    Line,
    LineActivated,
    LineInquiryAnswer,
    LineState,
    LineStatus,
    Recorded,
    SimChange,
    begin_activation,
    begin_activations,
    get_line,
    record_activation,
    record_activations,
    set_status,
)
from models.envelope import CARRIER_REJECTED
from models.events import EventType, record
from models.observability import carrier_refused
from models.types import utcnow

PHYSICAL_SIM = "Line has a physical SIM"


class EnrollmentActivities:
    def __init__(self, carrier: CarrierClient, db: Database, cipher: FieldCipher) -> None:
        self._carrier, self._db, self._cipher = carrier, db, cipher

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
                record(session, line.enrollment_id, EventType.SIM_ATTACHED, line=line, fields=",".join(replaced))
            line.esn, line.iccid = change.esn or line.esn, change.iccid or line.iccid
            session.add(line)

    @activity.defn
    async def activate_and_record(self, call: CarrierCall) -> LineActivated:
        """A line's whole activation in one activity (the order's first try, or its workflow's), in two
        transactions: the line ACTIVATING (and its shipment) with what the carrier order needs, then the carrier's
        activation under the step's key, then its record with the attempt's events. The carrier answers a
        repeated key with the same line and the record is conditional, so a retried attempt repeats nothing; a
        database away is DATABASE_UNAVAILABLE, never a carrier failure."""
        eid = call.enrollment_id
        async with database_outage():
            async with self._db.transaction() as transaction:
                line = await begin_activation(transaction, eid, shipment=_shipment_reference(eid), now=utcnow())
            if line.status == LineStatus.ACTIVE and line.mdn:  # recorded by an earlier attempt
                return LineActivated(line.mdn, line.msid or "", line.msl or "", line.iccid)
            done = await self._activate(call, line)
            profile = self._sealed_profile(done) if line.is_esim else None
            async with self._db.transaction() as transaction:
                numbers = (done.mdn, done.msid, done.msl)
                if await record_activation(
                    transaction, eid, numbers=numbers, iccid=done.iccid, profile=profile, now=utcnow()
                ):
                    await _activated(transaction, eid, line, done.mdn, new_profile=profile is not None)
        return LineActivated(mdn=done.mdn, msid=done.msid, msl=done.msl, iccid=done.iccid)

    @activity.defn
    async def activate_all_and_record(self, tries: FirstTries) -> list[FirstTryOutcome]:
        """The order's first try of its lines' activations, in one local activity and two transactions whatever
        the number of lines: every line ACTIVATING in one statement, the carrier's activations at once (each under
        its step's key, answered within the activity's time less what recording takes), then every activation
        recorded in one statement with its events. Each line's outcome is its own: a line refused or unanswered
        fails none of the others. The carrier answers a repeated key with the same line and a line recorded
        already is not recorded again, so a repeated try repeats nothing; the database away fails the whole try
        (DATABASE_UNAVAILABLE), as activate_and_record does."""
        calls = {call.enrollment_id: call for call in tries.calls}
        async with database_outage():
            async with self._db.transaction() as transaction:
                shipments = {eid: _shipment_reference(eid) for eid in calls}
                lines = await begin_activations(transaction, shipments, now=utcnow())
            within = _answer_within()
            tried = await asyncio.gather(*(self._try(calls[eid], lines[eid], within) for eid in calls))
            answers = dict(zip(calls, tried, strict=True))
            new = {eid: answer for eid, answer in answers.items() if isinstance(answer, Recorded)}
            if new:
                async with self._db.transaction() as transaction:
                    recorded = await record_activations(transaction, new, now=utcnow())
                    for eid in recorded:
                        profile = new[eid].profile is not None
                        await _activated(transaction, eid, lines[eid], new[eid].mdn, new_profile=profile)
        return [_outcome(eid, answer) for eid, answer in answers.items()]

    async def _try(self, call: CarrierCall, line: Activating, within: float | None) -> Recorded | str | None:
        """One line's activation for activate_all_and_record: what to record, the carrier's refusal, or None."""
        if line.status == LineStatus.ACTIVE and line.mdn:  # recorded by an earlier attempt
            return Recorded(line.mdn, line.msid or "", line.msl or "", line.iccid, None)
        try:
            done = await asyncio.wait_for(self._activate(call, line), within)
            return Recorded(
                done.mdn, done.msid, done.msl, done.iccid, self._sealed_profile(done) if line.is_esim else None
            )
        except ApplicationError as error:  # recorded by outcome_recorded: the refusal's words are the line's error
            return error.message if error.type == CARRIER_REJECTED else None
        except (TimeoutError, Unavailable):  # no (useful) answer in time: tried again, or by the line's workflow
            return None

    async def _activate(self, call: CarrierCall, line: Activating) -> Activation:
        pii = self._cipher.open(line.pii, Fields)
        # new_number_activation_with_zip_code: the new number's area is that ZIP's, not the service address's.
        zip_code = call.zip_code or pii["service_zip"]
        state = (state_of_zip(call.zip_code) if call.zip_code else None) or pii["service_state"]
        order = LineOrder(
            vendor_id=call.vendor_code,
            enrollment_id=call.enrollment_id,
            zip=zip_code,
            state=state,
            plan_id=str(line.plan_id),
            iccid=line.iccid,
            esn=line.esn,
            esim=line.is_esim,
        )
        async with outcome_recorded(self._db, call.enrollment_id, EventType.ACTIVATION_ATTEMPTED), outside_call():
            return await self._carrier.activate(order, key=call.idempotency_key)

    def _sealed_profile(self, done: Activation) -> str:
        """The activation code downloads the profile to a phone: it is sealed in the line, never returned to the
        workflow (whose history would keep it). A retried activation writes the same profile again."""
        if done.iccid is None or done.activation_code is None:
            raise Unavailable(self._carrier.system, "an eSIM activation without its profile")
        return self._cipher.seal(EsimDocument(iccid=done.iccid, activation_code=done.activation_code))

    @activity.defn
    async def line_inquiry(self, request: InquiryRequest) -> LineInquiryAnswer:
        async with self._db.transaction(write=False) as session:
            line = await get_line(session, request.enrollment_id)
        flags = {name: getattr(request, name) for name in INQUIRY_FLAGS}
        async with outside_call():
            return await self._carrier.line_inquiry(vendor_id=request.vendor_code, mdn=line.mdn or "", flags=flags)

    @activity.defn
    async def carriers(self, vendor_code: str) -> CarrierList:
        async with outside_call():
            return await self._carrier.carriers(vendor_code)

    @activity.defn
    async def assign_esim_profile(self, request: EsimRequest) -> EsimAssigned:
        """The carrier's reservation under a key of the line's (a retry, or a second request, gets the same
        profile), sealed in the line with its ESIM_ASSIGNED event; nothing for a line that has a profile."""
        async with self._db.transaction(write=False) as session:
            line = await get_line(session, request.enrollment_id)
        if line.esim_profile is not None:
            return EsimAssigned(reserved=False)
        if line.physical_sim:  # a SIM attached since the API looked: nothing to assign
            raise ApplicationError(PHYSICAL_SIM, type=CARRIER_REJECTED, non_retryable=True)
        async with outside_call():
            profile = await self._carrier.reserve_esim(
                vendor_id=request.vendor_code, enrollment_id=request.enrollment_id, key=f"esim-{request.enrollment_id}"
            )
        async with self._db.transaction() as session:
            line = await get_line(session, request.enrollment_id)
            if line.esim_profile is None:
                document = EsimDocument(iccid=profile.iccid, activation_code=profile.activation_code)
                line.esim_profile = self._cipher.seal(document)
                # The line's activation then asks for this profile (its ICCID, as an eSIM).
                line.is_esim, line.iccid = True, profile.iccid
                session.add(line)
                record(session, request.enrollment_id, EventType.ESIM_ASSIGNED, line=line)
        return EsimAssigned(reserved=True)


async def move_line(db: Database, state: LineState) -> None:
    """A line's new status (and error) with its event; a repeat of the same one writes nothing. An ACTIVE line
    keeps its status (and its number) while a port into it runs: only its port's end moves it."""
    async with db.transaction() as session:
        line = await get_line(session, state.enrollment_id)
        if line.status == LineStatus.ACTIVE and state.status != LineStatus.PORTED_OUT:
            return
        if (line.status, line.last_error) != (state.status, state.error):
            await set_status(session, line, state.status, state.error)


async def mark_activating(db: Database, enrollment_id: str) -> None:
    """A carrier step's first writes: the line's shipment recorded, if it ships, and ACTIVATING, unless a retried
    attempt finds it already past that (or it is ACTIVE, and a port into it keeps it so)."""
    async with db.transaction() as session:
        line = await get_line(session, enrollment_id)
        if line.enrollment_type == "SHIPMENT" and line.shipment_reference is None:
            line.shipment_reference = _shipment_reference(enrollment_id)
        if line.status not in (LineStatus.ACTIVE, LineStatus.ACTIVATING, LineStatus.PORT_PENDING):
            await set_status(session, line, LineStatus.ACTIVATING, None)
        session.add(line)


async def _activated(session: Session, enrollment_id: str, line: Activating, mdn: str, *, new_profile: bool) -> None:
    """The activation's events, written with its record: the attempt (on its first), the activation, the eSIM."""
    if first_attempt():
        record(session, enrollment_id, EventType.ACTIVATION_ATTEMPTED, line=line)
    later = EventType.ACTIVATED_LATER if line.activation_later else EventType.ACTIVATED
    record(session, enrollment_id, later, line=line, mdn=mdn)
    if new_profile and line.esim_profile is None:
        record(session, enrollment_id, EventType.ESIM_ASSIGNED, line=line, mdn=mdn)


# What a first try keeps of its time to record the answers it got (every carrier call is cut off before).
RECORD_SECONDS = 0.25


def _answer_within() -> float | None:
    """How long the carrier has to answer each line of activate_all_and_record: its time, less the recording's."""
    timeout = activity.info().start_to_close_timeout if activity.in_activity() else None
    if not timeout:
        return None
    seconds = timeout.total_seconds()
    return max(seconds - RECORD_SECONDS, seconds / 2)


def _outcome(enrollment_id: str, answer: Recorded | str | None) -> FirstTryOutcome:
    if isinstance(answer, Recorded):
        activated = LineActivated(answer.mdn, answer.msid, answer.msl, answer.iccid)
        return FirstTryOutcome(enrollment_id, activated=activated)
    return FirstTryOutcome(enrollment_id, refused=answer)


def _shipment_reference(enrollment_id: str) -> str:
    return f"SHP{enrollment_id[-10:].upper()}"  # from the enrollment id: a retry repeats it


@asynccontextmanager
async def outcome_recorded(db: Database, enrollment_id: str, attempt: EventType | None = None) -> AsyncIterator[None]:
    """Wraps outside_call(): a failed call records, in one transaction, the step's `attempt` event (on its first
    attempt) and a carrier refusal (code and text); a successful one leaves the attempt's event to the write that
    records its outcome."""
    try:
        yield
    except ApplicationError as error:
        refused = error.type == CARRIER_REJECTED
        attempted = attempt is not None and first_attempt()
        if refused or attempted:
            async with db.transaction() as session:
                line = await session.get(Line, enrollment_id)
                if attempt is not None and attempted:
                    record(session, enrollment_id, attempt, line=line)
                if refused:
                    code = str(error.details[0]) if error.details else ""
                    text = error.message.removeprefix(f"{code} ")
                    record(session, enrollment_id, EventType.CARRIER_REFUSED, line=line, code=code, text=text)
        if refused:
            carrier_refused(activity.metric_meter() if activity.in_activity() else None)
        raise


def first_attempt() -> bool:
    """The first try of a step (Temporal's own retries of it are one attempt of the line's)."""
    return not activity.in_activity() or activity.info().attempt == 1
