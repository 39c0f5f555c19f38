"""Accepting a create_customer_prepaid_multiline request: every enrollment-id and parent rule is checked
for every line before anything is written (all or nothing); then the ids are claimed atomically and each
line's data is stored, PII encrypted, for the workflow to work from by id."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from dispatch.context import Caller, Context
from models.carriers import carrier_problem, resolve_carrier
from models.clock import utcnow
from models.crypto import FieldCipher
from models.errors import refuse
from models.messages.enrollment import LinePlan
from models.refusals import PORT_IN_PROGRESS, invalid_enrollment_id
from models.requests.enrollment import CreateMultiline, LineRequest
from models.settings import Settings
from models.statuses import LineStatus
from models.tables.enrollment import Enrollment, Line, Plan
from models.tables.porting import PortIn
from persistence import events
from persistence.enrollment import email_hash, plan_of
from persistence.line_passwords import PASSWORD, PENDING
from persistence.porting import ports_in_progress, second_port
from persistence.transaction import DbSession
from services.enrollment.entries import new_pin
from services.enrollment.paid import payment_problems

CUSTOMER_ID_ATTEMPTS = 5
PII_FIELDS = (
    "first_name", "middle_initial", "last_name", "email", "alternate_phone_number", "service_address_one",
    "service_address_two", "service_city", "service_state", "service_zip", "billing_address_one",
    "billing_address_two", "billing_city", "billing_state", "billing_zip",
)  # fmt: skip
PORT_SECRETS = {
    "port_account_number": "account_number", "port_account_password": "account_password", "port_ssn": "ssn",
    "port_first_name": "first_name", "port_last_name": "last_name", "port_address_one": "address_one",
    "port_address_two": "address_two", "port_city": "city", "port_state": "state", "port_zip_code": "zip",
}  # fmt: skip


async def problems(
    session: DbSession, body: CreateMultiline, settings: Settings, *, caller: Caller, order_id: str
) -> list[str]:
    """Every reason to refuse the request, for all lines at once."""
    ids, aliases = [line.enrollment_id for line in body.lines], settings.systems.carrier_alias_map
    vendor_id = caller.vendor_id
    found: list[str] = [f"Enrollment id {eid} appears more than once" for eid in sorted(set(ids)) if ids.count(eid) > 1]
    found += [
        problem
        for number, line in enumerate(body.lines, start=1)
        if line.carrier is not None
        and (problem := carrier_problem(line.carrier, aliases, label=f"Line {number}: Carrier"))
    ]
    issued = {
        e.enrollment_id: e
        for e in (await session.exec(select(Enrollment).where(col(Enrollment.enrollment_id).in_(ids)))).all()
    }
    for eid in dict.fromkeys(ids):
        slot = issued.get(eid)
        if slot is None or slot.vendor_id != vendor_id:
            found.append(invalid_enrollment_id(eid))
        elif slot.claimed_by not in (None, order_id):
            found.append(f"Enrollment id {eid} is already used by another request")
    if body.parent_enrollment_id not in ids:
        holder = await session.get(Line, body.parent_enrollment_id)
        if holder is None or holder.vendor_id != vendor_id or holder.customer_id is None:
            parent = body.parent_enrollment_id
            found.append(f"Parent enrollment id {parent} is neither an existing account nor a line of this request")
    found += await _numbers_held(session, body)
    plan_ids = {int(line.plan_id) for line in body.lines}
    known = set(
        (await session.exec(select(Plan.plan_id).where(col(Plan.plan_id).in_(plan_ids), col(Plan.active)))).all()
    )
    found += [f"Plan id {plan_id} is not a plan of the plan list" for plan_id in sorted(plan_ids - known)]
    # The invoice, and payment when the vendor requires it.
    found += await payment_problems(session, body, vendor_id=vendor_id, require_payment=caller.require_payment)
    return found


async def _numbers_held(session: DbSession, body: CreateMultiline) -> list[str]:
    """A number with a port in progress on another line (of any vendor) is not ported twice at once."""
    numbers = [line.port_number for line in body.lines if line.activation_type == "PORTIN" and line.port_number]
    own = {line.enrollment_id for line in body.lines}  # a repeated request finds its own lines porting
    porting = await ports_in_progress(session, numbers, besides=own)
    found = [
        f"Line {number}: {PORT_IN_PROGRESS}"
        for number, line in enumerate(body.lines, start=1)
        if line.activation_type == "PORTIN" and line.port_number in porting
    ]
    found += [f"Port number {mdn} appears more than once" for mdn in sorted(set(numbers)) if numbers.count(mdn) > 1]
    return found


@dataclass(frozen=True)
class Accepted:
    """What intake did: whether this request stored the lines, each line's plan, and the PINs it gave them (a
    repeated request's stored lines are read for their PINs instead)."""

    stored: bool
    plans: list[LinePlan]
    pins: dict[str, str]


async def accept(ctx: Context, body: CreateMultiline, *, order_id: str) -> Accepted:
    """Checks, claims and stores the request's lines, each with its customer record (the account holder's id is
    each line's cust_id), in the request's one transaction; a repeated request changes nothing. A line's
    password is stored sealed; the caller hashes it once the lines are committed (services.enrollment.passwords)."""
    for _ in range(CUSTOMER_ID_ATTEMPTS):
        try:
            return await _accept(ctx, body, order_id=order_id)
        except IntegrityError as clash:  # two requests porting one number at once: the index lets one in
            if second_port(clash):
                raise refuse(PORT_IN_PROGRESS, rest_status=409) from None
            if "customer_id" not in str(clash.orig):
                raise
            # Two random customer ids met: draw again.
    raise RuntimeError("could not allocate unique customer ids")


async def _accept(ctx: Context, body: CreateMultiline, *, order_id: str) -> Accepted:
    vendor_id, agent = ctx.caller.vendor_id, ctx.caller.agent_username
    async with ctx.uow.transaction() as session:
        if found := await problems(session, body, ctx.settings, caller=ctx.caller, order_id=order_id):
            raise refuse(*found, rest_status=409 if any("already used" in p for p in found) else 400)
        ids = [line.enrollment_id for line in body.lines]
        claimed = await session.execute(
            update(Enrollment)
            .where(col(Enrollment.enrollment_id).in_(ids))
            .where(or_(col(Enrollment.claimed_by).is_(None), col(Enrollment.claimed_by) == order_id))
            .values(claimed_by=order_id, claimed_at=utcnow())
        )
        if claimed.rowcount != len(ids):  # type: ignore[attr-defined]  # another request won the race
            raise refuse("An enrollment id of this request is already used by another request", rest_status=409)
        # One read for every line of the request: a repeated request finds the lines the first one stored.
        already = {
            line.enrollment_id: line
            for line in (await session.exec(select(Line).where(col(Line.enrollment_id).in_(ids)))).all()
        }
        if already:
            return Accepted(False, [plan_of(already[eid]) for eid in ids], {})
        # An existing account's holder, read by the checks above (a line of this request is stored below).
        holder = None if body.parent_enrollment_id in ids else await session.get(Line, body.parent_enrollment_id)
        requests = sorted(body.lines, key=lambda line: line.enrollment_id != body.parent_enrollment_id)
        account = holder.customer_id if holder is not None else None
        stored: dict[str, Line] = {}
        pins: dict[str, str] = {}
        aliases = ctx.settings.systems.carrier_alias_map
        for line in requests:  # the account holder first: its customer id is every line's cust_id
            carrier = resolve_carrier(line.carrier, aliases) if line.carrier else None
            pins[line.enrollment_id] = line.pin or new_pin()
            row = _store(
                session,
                ctx.cipher,
                body,
                line,
                carrier,
                vendor_id=vendor_id,
                agent=agent,
                order_id=order_id,
                pin=pins[line.enrollment_id],
                account=account,
            )
            account = account or row.customer_id
            stored[row.enrollment_id] = row
        await events.received(session, [stored[eid] for eid in ids], actor=ctx.caller.actor)
        return Accepted(True, [plan_of(stored[eid]) for eid in ids], pins)


def _store(
    session: DbSession,
    cipher: FieldCipher,
    body: CreateMultiline,
    line: LineRequest,
    carrier: str | None,
    *,
    vendor_id: int,
    agent: str | None,
    order_id: str,
    pin: str,
    account: str | None,
) -> Line:
    values: dict[str, object] = line.model_dump()
    pii = {name: values[name] for name in PII_FIELDS if values[name] is not None}
    if line.password:  # sealed with the PII until services.enrollment.passwords hashes it
        pii[PASSWORD] = line.password
    customer_id = f"{secrets.randbelow(9 * 10**8) + 10**8}"
    row = Line(
        enrollment_id=line.enrollment_id,
        parent_enrollment_id=body.parent_enrollment_id,
        order_id=order_id,
        vendor_id=vendor_id,
        agent_username=agent,
        plan_id=int(line.plan_id),
        activation_type=line.activation_type,
        enrollment_type=line.enrollment_type,
        activation_later=line.later,
        phone_type=line.phone_type,
        device_type=line.device_type,
        brand_code=line.brand_code,
        sku_type=line.sku_type,
        model_id=line.model_id,
        device_id=line.device_id,
        iccid=None if line.esim else line.uiccid,
        esn=None if line.esim else line.esn,
        is_esim=line.esim,
        carrier=carrier,
        invoice_number=body.invoice_number,
        coupon_code=line.coupon_code,
        email_hash=email_hash(cipher, line.email),
        password_hash=PENDING if line.password else None,
        pin=cipher.encrypt(pin),
        pii=cipher.seal(pii),
        customer_id=customer_id,
        cust_id=account or customer_id,
        # A line to activate later waits from here (a channel may ask for it as soon as it is answered);
        # any other is RECEIVED until its order's first try moves it (the sweep starts an order left so).
        status=LineStatus.WAITING_ACTIVATION if line.later else LineStatus.RECEIVED,
    )
    session.add(row)
    if line.activation_type == "PORTIN":
        assert line.port_number is not None and line.port_current_carrier is not None
        old_account = {target: values[source] for source, target in PORT_SECRETS.items() if values[source] is not None}
        session.add(
            PortIn(
                enrollment_id=line.enrollment_id,
                port_number=line.port_number,
                current_carrier=line.port_current_carrier,
                secrets=cipher.seal(old_account),
            )
        )
    return row
