"""Accepting a create_customer_prepaid_multiline request: every enrollment-id and parent rule is checked
for every line before anything is written (all or nothing); then the ids are claimed atomically and each
line's data is stored, PII encrypted, for the workflow to work from by id."""

from __future__ import annotations

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from dispatch.context import Context
from models.carriers import carrier_problem, resolve_carrier
from models.clock import utcnow
from models.crypto import FieldCipher
from models.errors import refuse
from models.refusals import PORT_IN_PROGRESS, invalid_enrollment_id
from models.requests.enrollment import CreateMultiline, LineRequest
from models.settings import Settings
from models.tables.enrollment import Enrollment, Line, Plan
from models.tables.porting import PortIn
from persistence import events
from persistence.enrollment import email_hash
from persistence.line_passwords import PASSWORD, PENDING
from persistence.porting import ports_in_progress, second_port
from services.enrollment.entries import new_pin
from services.enrollment.paid import payment_problems
from services.enrollment.passwords import hash_later

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
    session: AsyncSession, body: CreateMultiline, settings: Settings, *, vendor_id: int, order_id: str
) -> list[str]:
    """Every reason to refuse the request, for all lines at once."""
    ids, aliases = [line.enrollment_id for line in body.lines], settings.systems.carrier_alias_map
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
    found += await payment_problems(session, body, vendor_id=vendor_id)  # the invoice, and payment when required
    return found


async def _numbers_held(session: AsyncSession, body: CreateMultiline) -> list[str]:
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


async def accept(ctx: Context, body: CreateMultiline, *, order_id: str) -> bool:
    """Checks, claims and stores the request's lines; a repeated request changes nothing. True when this
    call stored them (the enrollment is new)."""
    pending: dict[str, list[str]] = {}  # each distinct password of the lines stored: hashed after the commit
    try:
        stored = await _accept(ctx, body, order_id=order_id, pending=pending)
    except IntegrityError as clash:  # two requests porting one number at once: the index lets one in
        if not second_port(clash):
            raise
        raise refuse(PORT_IN_PROGRESS, rest_status=409) from None
    # Checked and committed: only now, and off the answer's path, one argon2 hash per distinct password.
    hash_later(ctx.resources.db, ctx.cipher, pending)
    return stored


async def _accept(ctx: Context, body: CreateMultiline, *, order_id: str, pending: dict[str, list[str]]) -> bool:
    vendor_id, agent = ctx.caller.vendor_id, ctx.caller.agent_username
    async with ctx.uow.transaction() as session:
        if found := await problems(session, body, ctx.settings, vendor_id=vendor_id, order_id=order_id):
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
        already = set((await session.exec(select(Line.enrollment_id).where(col(Line.enrollment_id).in_(ids)))).all())
        stored, aliases = False, ctx.settings.systems.carrier_alias_map
        for line in body.lines:
            if line.enrollment_id not in already:
                stored = True
                carrier = resolve_carrier(line.carrier, aliases) if line.carrier else None
                _store(session, ctx.cipher, body, line, carrier, vendor_id=vendor_id, agent=agent, order_id=order_id)
                if line.password:
                    pending.setdefault(line.password, []).append(line.enrollment_id)
        new = [line.enrollment_id for line in body.lines if line.enrollment_id not in already]
        await events.received(session, new, actor=ctx.caller.actor)
    return stored


def _store(
    session: AsyncSession,
    cipher: FieldCipher,
    body: CreateMultiline,
    line: LineRequest,
    carrier: str | None,
    *,
    vendor_id: int,
    agent: str | None,
    order_id: str,
) -> None:
    values: dict[str, object] = line.model_dump()
    pii = {name: values[name] for name in PII_FIELDS if values[name] is not None}
    if line.password:  # sealed with the PII until services.enrollment.passwords hashes it
        pii[PASSWORD] = line.password
    session.add(
        Line(
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
            pin=cipher.encrypt(line.pin or new_pin()),
            pii=cipher.seal(pii),
        )
    )
    if line.activation_type == "PORTIN":
        assert line.port_number is not None and line.port_current_carrier is not None
        secrets = {target: values[source] for source, target in PORT_SECRETS.items() if values[source] is not None}
        session.add(
            PortIn(
                enrollment_id=line.enrollment_id,
                port_number=line.port_number,
                current_carrier=line.port_current_carrier,
                secrets=cipher.seal(secrets),
            )
        )
