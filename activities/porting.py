"""PortingActivities: submit a line's port (checking the old account as the losing carrier would when Lineup
holds the number), poll it, resubmit corrected data, give the line the ported number at the end (releasing the
one it had), and validate a number for port-in."""

from __future__ import annotations

import hashlib
import hmac

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities.enrollment import mark_activating, move_line, outcome_recorded
from adapters.carrier import CarrierClient, PortOrder
from adapters.http import Rejected, Unavailable, outside_call
from models.crypto import FieldCipher, Fields
from models.db import Database, database_outage
from models.enrollment.lines import (
    ActivationType,
    CarrierCall,
    Line,
    LineState,
    LineStatus,
    get_line,
    holding_line,
    ported_out,
    set_status,
)
from models.envelope import PORT_NOT_NOW, PORT_UNCHANGED, UNAVAILABLE
from models.events import EventType, record
from models.observability import port_completed, port_out_check_failed
from models.porting import (
    PortCheck,
    PortEligibilityReply,
    PortFinish,
    PortIn,
    PortOutcome,
    PortOutLimits,
    PortResubmit,
    PortStatus,
    PortSubmission,
    PortView,
    PortWatchPoll,
    check_port_out,
    get_port,
    same_state,
    store_view,
)
from models.types import utcnow

CORRECTABLE = ("account_number", "account_password", "first_name", "last_name", "address_one", "city", "state", "zip")
# The losing side's answers when Lineup holds the number (decisions.md, "Porting a number Lineup holds"): one for
# a wrong account number or PIN, which never tells which of the two was wrong, and one while the number's ports
# are locked after too many wrong checks, which tells nothing of the count.
PORT_OUT_MISMATCH = ("8A", "Account number or PIN does not match")
PORT_OUT_LOCKED = ("8L", PORT_NOT_NOW)


class PortingActivities:
    def __init__(
        self, carrier: CarrierClient, db: Database, cipher: FieldCipher, limits: PortOutLimits | None = None
    ) -> None:
        self._carrier, self._db, self._cipher = carrier, db, cipher
        self._limits = limits or PortOutLimits()

    @activity.defn
    async def submit_and_record(self, call: CarrierCall) -> PortSubmission:
        """A line's port submitted under the step's key and recorded, the line PORT_PENDING (an ACTIVE line
        stays ACTIVE). A number an active line of Lineup holds goes only with that line's account number and
        PIN, and not while its ports are locked: otherwise it is RESOLUTION_REQUIRED, never sent. An order that
        gave way to another vendor's port (CANCELLED) is not sent either. A retried attempt repeats nothing."""
        eid = call.enrollment_id
        async with database_outage():
            async with self._db.transaction(write=False) as session:
                line, port = await get_line(session, eid), await get_port(session, eid)
                active = line.status == LineStatus.ACTIVE
                if port.carrier_port_id is not None:  # recorded by an earlier attempt
                    return PortSubmission(port.carrier_port_id, _iso(port))
                if port.status == PortStatus.CANCELLED:  # its workflow ends it
                    cancelled = PortView(PortStatus.CANCELLED, carrier_response=port.carrier_response)
                    return PortSubmission(None, _iso(port), cancelled)
                held = await holding_line(session, port.port_number, besides=eid) is not None
            if not active:
                await mark_activating(self._db, eid)
            refusal = None
            if held:
                held, refusal = await self._holder_check(eid)
            if refusal is None:
                order = PortOrder(
                    vendor_id=call.vendor_code,
                    enrollment_id=eid,
                    port_number=port.port_number,
                    iccid=line.iccid or line.esn,
                    current_carrier=port.current_carrier,
                    old_account=self._cipher.open(port.secrets, Fields),
                    holder_consent=held,
                )
                async with outcome_recorded(self._db, eid), outside_call():
                    submitted = await self._carrier.submit_port(order, key=call.idempotency_key)
                port = await self._record_submitted(eid, submitted.port_id, submitted.status)
            if not active:
                await move_line(self._db, LineState(eid, LineStatus.PORT_PENDING, None))
        return PortSubmission(port.carrier_port_id, _iso(port), refusal)

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
        await self.record_port_status(poll.enrollment_id, view)
        return view

    @activity.defn
    async def resubmit_port(self, resubmit: PortResubmit) -> PortView:
        """Sends the corrected old-account data (read from the database) to the carrier."""
        async with self._db.transaction(write=False) as session:
            port = await get_port(session, resubmit.enrollment_id)
        secrets = self._cipher.open(port.secrets, Fields)
        corrections = {key: secrets[key] for key in CORRECTABLE if key in secrets}
        async with outside_call():
            return await self._carrier.update_port(
                resubmit.vendor_code, resubmit.port_id, corrections, key=resubmit.idempotency_key
            )

    @activity.defn
    async def record_port_status(self, enrollment_id: str, view: PortView) -> None:
        """The port's state as the carrier reported it, with its events (called by the other activities too)."""
        async with self._db.transaction() as session:
            port = await get_port(session, enrollment_id)
            if view.status == PortStatus.COMPLETED != port.status and port.requested_at:  # how long the port took
                meter = activity.metric_meter() if activity.in_activity() else None
                port_completed((utcnow() - port.requested_at).total_seconds(), meter)
            await store_view(session, port, view)

    @activity.defn
    async def finish_port(self, finish: PortFinish) -> PortOutcome:
        """The port's end, once: COMPLETED gives the line the ported number (a waiting line becomes ACTIVE on it;
        an ACTIVE line changes number, its first to be released); any other end leaves an ACTIVE line as it was
        and a waiting one in PORT_<status>. A repeat finds it done and answers the same."""
        view, eid = finish.view, finish.enrollment_id
        await self.record_port_status(eid, view)
        async with self._db.transaction() as session:
            line = await get_line(session, eid)
            if view.status != PortStatus.COMPLETED or not view.mdn:
                if line.status == LineStatus.ACTIVE:
                    return PortOutcome(line.status, line.mdn)
                error = view.resolution_description or view.carrier_response
                after = LineStatus(f"PORT_{view.status}")  # PORT_REJECTED, PORT_CANCELLED, PORT_ABANDONED
                await set_status(session, line, after, error)
                return PortOutcome(after, line.mdn, error)
            if line.mdn == view.mdn:  # done by an earlier attempt
                return PortOutcome(line.status, line.mdn, released=line.released_mdn)
            await ported_out(session, view.mdn, to=eid)
            released = line.mdn if line.status == LineStatus.ACTIVE else None
            if released is not None:
                record(session, eid, EventType.NUMBER_CHANGED, line=line, mdn=view.mdn)
            else:
                later = EventType.ACTIVATED_LATER if line.activation_later else EventType.ACTIVATED
                record(session, eid, later, line=line, mdn=view.mdn)
                line.activated_at = utcnow()
            line.mdn, line.msid, line.msl = view.mdn, view.msid or line.msid, view.msl or line.msl
            line.status, line.last_error, line.status_since = LineStatus.ACTIVE, None, utcnow()
            line.released_mdn, line.activation_type = released, ActivationType.PORTIN
            session.add(line)
            return PortOutcome(LineStatus.ACTIVE, view.mdn, released=released)

    @activity.defn
    async def release_number(self, finish: PortFinish) -> None:
        """The number a line had before its ported one goes back to the carrier (idempotent by its key)."""
        assert finish.released is not None
        async with outside_call():
            await self._carrier.release(
                finish.vendor_code, finish.released, key=f"port-{finish.enrollment_id}:release:{finish.released}"
            )

    @activity.defn
    async def validate_port(self, check: PortCheck) -> PortEligibilityReply:
        async with outside_call():
            return await self._carrier.validate_port(check.vendor_code, check.port_number, check.zip_code)

    async def _holder_check(self, enrollment_id: str) -> tuple[bool, PortView | None]:
        """The losing side's check when Lineup holds the number (True: it does; no refusal: the old account
        matched): the account number is that line's customer id (or its account's) and the PIN its account PIN,
        and the number's ports are not locked (check_port_out counts the wrong checks). A refusal is stored with
        the port and told to the holder's vendor (`line.port_out_attempted` on the holding line); it names
        neither the line nor its vendor, and never which of account number and PIN was wrong."""
        async with self._db.transaction() as session:
            port = await get_port(session, enrollment_id)
            holder = await holding_line(session, port.port_number, besides=enrollment_id)
            if holder is None:  # the number left its line meanwhile
                return False, None
            checked = hashlib.sha256(port.secrets.encode()).hexdigest()
            if port.checked == checked and port.status == PortStatus.RESOLUTION_REQUIRED:  # a retried attempt
                return True, PortView(port.status, port.resolution_code, port.resolution_description)
            matches = self._matches(port, holder)
            verdict = await check_port_out(session, port.port_number, matches=matches, limits=self._limits)
            if verdict.passed:
                return True, None
            if not matches:  # the guessing rate the alert rules watch
                port_out_check_failed(activity.metric_meter() if activity.in_activity() else None)
            code, text = PORT_OUT_LOCKED if verdict.locked else PORT_OUT_MISMATCH
            refusal = PortView(PortStatus.RESOLUTION_REQUIRED, code, text)
            port.checked = checked
            await store_view(session, port, refusal)
            record(
                session,
                holder.enrollment_id,
                EventType.PORT_OUT_ATTEMPTED,
                line=holder,
                attempted_at=utcnow().isoformat(),
                failures=verdict.failures,
                locked=verdict.locked,
            )
            return True, refusal

    def _matches(self, port: PortIn, holder: Line) -> bool:
        """Whether the port's old account is the holder's: its customer id (or its account's) and its PIN."""
        given = self._cipher.open(port.secrets, Fields)
        pin = self._cipher.decrypt(holder.pin) if holder.pin is not None else None
        offered = str(given.get("account_password") or "")
        right_pin = pin is not None and hmac.compare_digest(offered.encode(), pin.encode())
        return given.get("account_number") in {holder.customer_id, holder.cust_id} and right_pin

    async def _record_submitted(self, enrollment_id: str, port_id: str, status: str) -> PortIn:
        async with self._db.transaction() as session:
            port = await get_port(session, enrollment_id)
            if port.carrier_port_id is None:
                port.carrier_port_id, port.status = port_id, status
                port.resolution_code = port.resolution_description = None
                port.requested_at = port.requested_at or utcnow()
                session.add(port)
                line = await get_line(session, enrollment_id)
                record(session, enrollment_id, EventType.PORT_SUBMITTED, line=line)
                # A line ported in after creation (create_portin_v2…) is a PORTIN line from its submission on.
                if line.activation_type != ActivationType.PORTIN and line.status != LineStatus.ACTIVE:
                    line.activation_type = ActivationType.PORTIN
                    session.add(line)
            return port


def _iso(port: PortIn) -> str:
    return (port.requested_at or utcnow()).isoformat()
