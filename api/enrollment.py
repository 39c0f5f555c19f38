"""The enrollment domain's actions: customer creation (create_customer_prepaid_multiline and the original's names
for it), a later line's activation, customer_info, line_inquiry, assign_esim, and the supporting
check_service_availability, plan_list and company_carrier_list.

A create is accepted all or nothing, in three steps in the request's one transaction: one read of everything it
decides on (`read_intake`), a decision in plain code (`refusals`, tested without a database), one write of the
claim, the lines and their customer records (`store`). Then the order's workflow (workflows.enrollment) is started
with update-with-start and answers once each line's first carrier try has its answer, within LINEUP_SYNC_WAIT_SECONDS;
only a line with work left goes on in a workflow of its own (a done line answers from its row). A line's password
is stored sealed and hashed with argon2 right after the commit, off the request."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import logging
import secrets
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import NamedTuple

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from temporalio.client import Client, WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import TypedSearchAttributes
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from activities.enrollment import PHYSICAL_SIM
from api.access import WEB_SOURCES
from api.dispatch import Context, action, lookup_workflow_id, run_lookup
from api.temporal import START_ONCE, StartOnce, started_anyway, taken
from models.address import city_of_zip, state_of_zip
from models.auth import Vendor
from models.crypto import EsimDocument, FieldCipher, Fields, hash_secret_async, verify_secret_async
from models.db import Database, Session, database_unavailable
from models.enrollment.actions import (
    ALIASES,
    ALREADY_ACTIVE,
    AVAILABILITY,
    CARRIERS,
    CREATED,
    CUSTOMER_INFO,
    INQUIRY,
    LPA_EXAMPLE,
    PII_FIELDS,
    PLANS,
    ActivateLine,
    AssignEsim,
    Availability,
    CheckServiceAvailability,
    CompanyCarrierList,
    CreateMultiline,
    CustomerInfo,
    CustomerLine,
    EsimProfile,
    LineEntry,
    LineInquiry,
    LineInquiryData,
    LineRequest,
    NewNumberActivation,
    PlanItem,
    PlanList,
)
from models.enrollment.lines import (
    INQUIRY_FLAGS,
    PASSWORD,
    PENDING,
    Activation,
    ActivationType,
    CarrierItem,
    CarrierListQuery,
    Enrollment,
    EnrollmentOrder,
    EnrollmentResult,
    EsimRequest,
    InquiryRequest,
    Line,
    LinePlan,
    LineProgress,
    LineStart,
    LineStatus,
    Pacing,
    Plan,
    accounts_lines,
    customer_line,
    email_hash,
    email_lines,
    give_pin,
    hash_all,
    lines_of_order,
    plan_of,
    received,
    sealed_extras,
    settle,
    vendor_line,
)
from models.envelope import (
    NO_RECORD,
    PLANS_NOT_FOUND,
    PORT_IN_PROGRESS,
    PORT_NOT_NOW,
    LineupError,
    active_on_another_sim,
    invalid_enrollment_id,
    not_waiting_for_activation,
    refuse,
)
from models.observability import enrollment_started
from models.payment import account_plans, paid_plans, settled_invoice
from models.porting import PortIn, admit_ports, number_taken, second_port
from models.settings import Settings
from models.types import carrier_problem, resolve_carrier, utcnow
from workflows.enrollment import (
    CarrierListWorkflow,
    EnrollmentWorkflow,
    EsimAssignmentWorkflow,
    LineInquiryWorkflow,
    LineWorkflow,
    enrollment_search_attributes,
    enrollment_workflow_id,
    esim_workflow_id,
    inquiry_workflow_id,
    line_attributes,
    line_workflow_id,
    port_workflow_id,
)
from workflows.porting import PortInWorkflow

log = logging.getLogger("lineup.enrollment")

NO_CUSTOMER = "No customer found against this enrolment ID"
NOT_SERVED = "We do not provide services at the users Zip Code"
INVALID_INVOICE = "Invalid invoice number"
CARRIERS_SOLD = ["TMB", "ATT", "VER"]
CUSTOMER_ID_ATTEMPTS = 5  # random customer ids that may meet one already given before the create gives up
PIN_DIGITS = 4
# A PORTIN line's old account, sealed in its port order under these names.
PORT_SECRETS = {
    "port_account_number": "account_number", "port_account_password": "account_password", "port_ssn": "ssn",
    "port_first_name": "first_name", "port_last_name": "last_name", "port_address_one": "address_one",
    "port_address_two": "address_two", "port_city": "city", "port_state": "state", "port_zip_code": "zip",
}  # fmt: skip
# Lines that hold no paid plan: waiting for activation, or a port that ended without the number.
NOT_ACTIVATED = frozenset(
    {LineStatus.WAITING_ACTIVATION, LineStatus.PORT_REJECTED, LineStatus.PORT_CANCELLED, LineStatus.PORT_ABANDONED}
)


# ---- customer creation ------------------------------------------------------------------------------------------


@action("customer", interface=True, aliases=ALIASES, sources=WEB_SOURCES, example=CREATED)
async def create_customer_prepaid_multiline(*, body: CreateMultiline, ctx: Context) -> list[LineEntry]:
    """Creates prepaid customers, one per line, under a parent account (1 to LINEUP_MAX_LINES lines): accepted
    all or nothing, then the enrollment's workflow is started (or found, for a repeated request) and waited for."""
    settings = ctx.settings
    if len(body.lines) > settings.enrollment.max_lines:
        raise refuse(f"Lines must hold at most {settings.enrollment.max_lines} lines")
    order_id = enrollment_workflow_id(body.parent_enrollment_id, [line.enrollment_id for line in body.lines])
    accepted = await accept(ctx, body, order_id=order_id)
    await tell_gave_way(ctx, accepted.gave_way)
    if accepted.stored:
        enrollment_started()
    vendor, agent = ctx.caller.vendor_code, ctx.caller.agent_username
    order = EnrollmentOrder(order_id, body.parent_enrollment_id, accepted.plans, vendor, agent, Pacing.of(settings))
    try:
        result = await _run(ctx, order, stored=accepted.plans)
    finally:  # the lines this request stored are committed by now, whatever Temporal said
        if accepted.stored:
            hash_later(ctx.resources.db, ctx.cipher, body.lines)
    try:
        return await line_entries(ctx, result.lines, invoice_number=body.invoice_number, pins=accepted.pins)
    except Exception as error:
        # The database away as an eSIM line's profile is read back: the order is taken, and a first request knows
        # its PINs; the profile is answered as one not allocated yet is (line_inquiry gives it later).
        if not database_unavailable(error) or any(plan.enrollment_id not in accepted.pins for plan in result.lines):
            raise
        pins = accepted.pins
        return [LineEntry.of(plan, body.invoice_number, pin=pins[plan.enrollment_id]) for plan in result.lines]


@dataclass(frozen=True)
class Intake:
    """Everything a create decides on, read in one go."""

    slots: Mapping[str, Enrollment]  # the request's enrollment ids as they were issued
    stored: Mapping[str, Line]  # the lines a first request stored: this one repeats it
    holder: Line | None  # the existing account the lines join (None when its holder is a line of the request)
    plans: frozenset[int]  # the active plans among those asked for
    porting: frozenset[str] = frozenset()  # numbers of the request another line of the vendor is porting now
    held: frozenset[str] = frozenset()  # numbers of the request another vendor's port holds now
    gave_way: tuple[str, ...] = ()  # another vendor's orders this request cancelled (their hold had ended)
    invoice_settled: bool = True  # the invoice given is a settled payment of the account (no invoice: True)
    paying: bool = False  # the vendor activates a line only once a settled payment covers its plan
    account: tuple[tuple[str, int, str], ...] = ()  # (line, plan, status) of the account's lines, when paying
    paid: tuple[int, ...] = ()  # the plans the account's settled payments cover, one per line paid for


@dataclass(frozen=True)
class Accepted:
    """What intake did: whether this request stored the lines, each line's plan, and the PINs it gave them (a
    repeated request's stored lines are read for their PINs instead)."""

    stored: bool
    plans: list[LinePlan]
    pins: dict[str, str] = field(default_factory=dict)
    gave_way: tuple[str, ...] = ()  # the port orders intake cancelled for this request's ports (Intake.gave_way)


async def accept(ctx: Context, body: CreateMultiline, *, order_id: str) -> Accepted:
    """The request's lines read, decided on and stored with their customer records (the account holder's id is
    each line's cust_id), in the request's one transaction; a repeated request changes nothing."""
    caller = ctx.caller
    for _ in range(CUSTOMER_ID_ATTEMPTS):
        try:
            async with ctx.uow.transaction() as session:
                intake = await read_intake(
                    session, body, vendor_id=caller.vendor_id, paying=caller.require_payment, settings=ctx.settings
                )
                aliases = ctx.settings.systems.carrier_aliases
                found = refusals(body, intake, vendor_id=caller.vendor_id, order_id=order_id, aliases=aliases)
                if found:
                    raise refuse(*found, rest_status=409 if any("already used" in p for p in found) else 400)
                if intake.stored:
                    plans = [plan_of(intake.stored[line.enrollment_id]) for line in body.lines]
                    return Accepted(False, plans, gave_way=intake.gave_way)
                return replace(await store(session, ctx, body, intake, order_id=order_id), gave_way=intake.gave_way)
        except IntegrityError as clash:  # two requests porting one number at once: the index lets one in
            if second_port(clash):  # read again: the refusal says whose port it is (PORT_NOT_NOW for another's)
                continue
            if "customer_id" not in str(clash.orig) and not number_taken(clash):
                raise
            # Two random customer ids (or port order numbers) met: draw again.
    raise RuntimeError("could not allocate unique customer ids")


async def read_intake(
    session: Session, body: CreateMultiline, *, vendor_id: int, paying: bool, settings: Settings
) -> Intake:
    """The one read of a create: its enrollment ids, lines a first request stored, the account it joins, its plans;
    the numbers it ports when it ports some (another vendor's order past its port hold gives way here: models.porting
    .admit_ports), its invoice when it names one, and the account's payments when the vendor wants every activated
    line paid for."""
    ids = [line.enrollment_id for line in body.lines]
    parent = body.parent_enrollment_id
    slots = (await session.exec(select(Enrollment).where(col(Enrollment.enrollment_id).in_(ids)))).all()
    stored = (await session.exec(select(Line).where(col(Line.enrollment_id).in_(ids)))).all()
    asked = {int(line.plan_id) for line in body.lines}
    plans = await session.exec(select(Plan.plan_id).where(col(Plan.plan_id).in_(asked), col(Plan.active)))
    intake = Intake(
        slots={slot.enrollment_id: slot for slot in slots},
        stored={line.enrollment_id: line for line in stored},
        holder=None if parent in ids else await session.get(Line, parent),
        plans=frozenset(plans.all()),
    )
    if numbers := _port_numbers(body):  # a repeated request finds its own lines porting
        hold = timedelta(hours=settings.porting.hold_hours)
        admitted = await admit_ports(session, numbers, besides=ids, vendor_id=vendor_id, hold=hold)
        mine = frozenset(number for number, why in admitted.refused.items() if why == PORT_IN_PROGRESS)
        others = frozenset(admitted.refused).difference(mine)
        intake = replace(intake, porting=mine, held=others, gave_way=admitted.cancelled)
    if body.invoice_number is not None:
        settled = await settled_invoice(session, vendor_id, body.invoice_number, {parent, *ids})
        intake = replace(intake, invoice_settled=settled)
    if paying:
        account = await account_plans(session, vendor_id, parent)
        activated = [line.enrollment_id for line in body.lines if not line.later]
        family = {parent, *activated, *(eid for eid, _plan, _status in account)}
        paid = await paid_plans(session, vendor_id, family)
        intake = replace(intake, paying=True, account=tuple(account), paid=tuple(paid))
    return intake


def refusals(
    body: CreateMultiline, intake: Intake, *, vendor_id: int, order_id: str, aliases: Mapping[str, str]
) -> list[str]:
    """Every reason to refuse the request, for all its lines at once (none: it is accepted)."""
    ids = [line.enrollment_id for line in body.lines]
    found = [f"Enrollment id {eid} appears more than once" for eid in sorted(set(ids)) if ids.count(eid) > 1]
    found += [
        problem
        for number, line in enumerate(body.lines, start=1)
        if line.carrier is not None
        and (problem := carrier_problem(line.carrier, aliases, label=f"Line {number}: Carrier"))
    ]
    for eid in dict.fromkeys(ids):
        slot = intake.slots.get(eid)
        if slot is None or slot.vendor_id != vendor_id:
            found.append(invalid_enrollment_id(eid))
        elif slot.claimed_by not in (None, order_id):
            found.append(f"Enrollment id {eid} is already used by another request")
    holder, parent = intake.holder, body.parent_enrollment_id
    if parent not in ids and (holder is None or holder.vendor_id != vendor_id or holder.customer_id is None):
        found.append(f"Parent enrollment id {parent} is neither an existing account nor a line of this request")
    # A number with a port in progress on another line (of any vendor) is not ported twice at once; another
    # vendor's is not named (its order waits at most LINEUP_PORT_HOLD_HOURS for corrections).
    found += [
        f"Line {number}: {PORT_IN_PROGRESS if line.port_number in intake.porting else PORT_NOT_NOW}"
        for number, line in enumerate(body.lines, start=1)
        if line.activation_type == ActivationType.PORTIN and line.port_number in intake.porting | intake.held
    ]
    numbers = _port_numbers(body)
    found += [f"Port number {mdn} appears more than once" for mdn in sorted(set(numbers)) if numbers.count(mdn) > 1]
    asked = {int(line.plan_id) for line in body.lines}
    found += [f"Plan id {plan_id} is not a plan of the plan list" for plan_id in sorted(asked - intake.plans)]
    if not intake.invoice_settled:
        found.append(INVALID_INVOICE)
    if intake.paying:  # every line activated now must be paid for
        activating = {line.enrollment_id: int(line.plan_id) for line in body.lines if not line.later}
        missing = uncovered(intake.account, intake.paid, activating)
        found += [
            f"Line {number}: {unpaid(plan)}"
            for number, line in enumerate(body.lines, start=1)
            if line.enrollment_id in activating and (plan := int(line.plan_id)) in missing
        ]
    return found


def uncovered(account: Iterable[tuple[str, int, str]], paid: Iterable[int], activating: Mapping[str, int]) -> set[int]:
    """Plans the account's settled payments do not cover once `activating` (enrollment id → plan) activate too:
    lines already active or on their way count first, so a payment is never spent twice."""
    earlier = [plan for eid, plan, status in account if eid not in activating and status not in NOT_ACTIVATED]
    covered, needed = Counter(paid), Counter([*earlier, *activating.values()])
    return {plan for plan, count in needed.items() if count > covered[plan]}


def unpaid(plan_id: int) -> str:
    return f"No settled payment covers plan {plan_id} of this line; make_payment first"


def _port_numbers(body: CreateMultiline) -> list[str]:
    return [
        line.port_number for line in body.lines if line.activation_type == ActivationType.PORTIN and line.port_number
    ]


async def store(session: Session, ctx: Context, body: CreateMultiline, intake: Intake, *, order_id: str) -> Accepted:
    """The one write of a create: its enrollment ids claimed for this order (a request that claimed one meanwhile
    wins it), then each line with its customer record, PII and PIN sealed, and its events."""
    ids = [line.enrollment_id for line in body.lines]
    claimed = await session.run(
        update(Enrollment)
        .where(col(Enrollment.enrollment_id).in_(ids))
        .where(or_(col(Enrollment.claimed_by).is_(None), col(Enrollment.claimed_by) == order_id))
        .values(claimed_by=order_id, claimed_at=utcnow())
    )
    if claimed != len(ids):
        raise refuse("An enrollment id of this request is already used by another request", rest_status=409)
    account = intake.holder.customer_id if intake.holder is not None else None
    stored: dict[str, Line] = {}
    pins: dict[str, str] = {}
    # The account holder first: its customer id is every line's cust_id.
    for line in sorted(body.lines, key=lambda line: line.enrollment_id != body.parent_enrollment_id):
        pins[line.enrollment_id] = line.pin or new_pin()
        row = _line_row(ctx, body, line, order_id=order_id, pin=pins[line.enrollment_id], account=account)
        session.add(row)
        if line.activation_type == ActivationType.PORTIN:
            session.add(_port_order(ctx.cipher, line))
        account = account or row.customer_id
        stored[row.enrollment_id] = row
    received(session, [stored[eid] for eid in ids], actor=ctx.caller.actor)
    return Accepted(True, [plan_of(stored[eid]) for eid in ids], pins)


def _line_row(
    ctx: Context, body: CreateMultiline, line: LineRequest, *, order_id: str, pin: str, account: str | None
) -> Line:
    cipher, values = ctx.cipher, line.model_dump()
    pii = {name: values[name] for name in PII_FIELDS if values[name] is not None}
    if line.password:  # sealed with the PII until hash_later hashes it
        pii[PASSWORD] = line.password
    customer_id = f"{secrets.randbelow(9 * 10**8) + 10**8}"
    return Line(
        enrollment_id=line.enrollment_id,
        parent_enrollment_id=body.parent_enrollment_id,
        order_id=order_id,
        vendor_id=ctx.caller.vendor_id,
        agent_username=ctx.caller.agent_username,
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
        carrier=resolve_carrier(line.carrier, ctx.settings.systems.carrier_aliases) if line.carrier else None,
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


def _port_order(cipher: FieldCipher, line: LineRequest) -> PortIn:
    assert line.port_number is not None and line.port_current_carrier is not None  # a PORTIN line's rule
    values = line.model_dump()
    old_account = {target: values[source] for source, target in PORT_SECRETS.items() if values[source] is not None}
    return PortIn(
        enrollment_id=line.enrollment_id,
        port_number=line.port_number,
        current_carrier=line.port_current_carrier,
        secrets=cipher.seal(old_account),
        old_esn=line.old_esn,
    )


async def _run(ctx: Context, order: EnrollmentOrder, *, stored: list[LinePlan]) -> EnrollmentResult:
    """Starts or finds the enrollment's workflow and waits for its customer records (and, a little, MDNs).
    `stored`: the lines as intake stored (or found) them, the answer when nothing newer can be read."""
    settings = ctx.settings
    start = WithStartWorkflowOperation(
        EnrollmentWorkflow.run,
        order,
        id=order.order_id,
        task_queue=ctx.task_queue,
        **START_ONCE,
        task_timeout=timedelta(seconds=settings.temporal.workflow_task_timeout_seconds),
        search_attributes=enrollment_search_attributes(order),
    )
    wait = settings.enrollment.sync_wait_seconds
    client = await ctx.temporal_client()
    try:
        async with ctx.outside("The workflow engine", within=wait + ctx.lookup_seconds()):
            try:
                return await client.execute_update_with_start_workflow(
                    EnrollmentWorkflow.customers, start_workflow_operation=start
                )
            except RPCError as error:
                if error.status != RPCStatusCode.NOT_FOUND:
                    raise
                # The order completed while this repeated request's update was on its way: as below.
    except WorkflowAlreadyStartedError:
        pass  # the enrollment finished long ago: its lines' records are the answer to the repeated request
    except LineupError:
        # A worker or the database away during the wait: once the order's workflow has it, the order goes on,
        # and "unavailable" would tell a channel that a paid order failed. Its lines are "in progress" then.
        if not await taken(client, start, order.order_id, within=settings.temporal.rpc_seconds):
            raise
        log.warning("create answered in progress", extra={"fields": {"order_id": order.order_id}})
    finally:
        await started_anyway(start)  # its outcome read: no error left unread
    return await _records(ctx, order.order_id, stored=stored)


async def _records(ctx: Context, order_id: str, *, stored: list[LinePlan]) -> EnrollmentResult:
    """The order's lines as their rows say now; with the database away, as intake stored them (its order is
    taken: its workflow writes them as the database comes back)."""
    try:
        async with ctx.uow.transaction() as session:
            return EnrollmentResult([plan_of(line) for line in await lines_of_order(session, order_id)])
    except Exception as error:
        if not database_unavailable(error):
            raise
        log.warning("create answered from intake", extra={"fields": {"order_id": order_id}})
        return EnrollmentResult(stored)


# ---- line passwords: hashed off the create's path ---------------------------------------------------------------

_running: set[asyncio.Task[int]] = set()  # held, so a task is not collected before it ends


def hash_later(db: Database, cipher: FieldCipher, lines: Sequence[LineRequest]) -> None:
    """After the request's lines are committed: one argon2 hash (~50 ms of CPU) per distinct password, in a task of
    the API process, written to every line that has it; a line whose task died with its process is verified
    against its sealed password and hashed then, and the sweep hashes those left pending past its grace."""
    passwords = [(line.enrollment_id, line.password) for line in lines if line.password]
    if passwords:
        task = asyncio.create_task(hash_all(db, cipher, passwords))
        _running.add(task)
        task.add_done_callback(_running.discard)


async def verify_line_password(db: Database, cipher: FieldCipher, line: Line | None, offered: str) -> bool:
    """The customer's password check (saved_card_list): argon2 against the hash, or, while it is pending,
    against the sealed password (an argon2 of the dummy besides, so both take as long) and then hashed."""
    if line is None or line.password_hash != PENDING:
        return await verify_secret_async(line.password_hash if line else None, offered)
    stored = cipher.open(line.pii, Fields).get(PASSWORD, "")
    await verify_secret_async(None, offered)
    ok = bool(stored) and hmac.compare_digest(stored.encode(), offered.encode())
    if ok:
        await settle(db, cipher, [line.enrollment_id], await hash_secret_async(offered))
    return ok


# ---- what answers say of a line beside its record: its PIN and eSIM profile, read from its row ------------------


class Extras(NamedTuple):
    pin: str
    esim: EsimProfile | None


def new_pin() -> str:
    """A customer's account PIN when the channel gives none: 4 random digits."""
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


async def line_entries(
    ctx: Context, plans: list[LinePlan], *, invoice_number: str | None, pins: Mapping[str, str] | None = None
) -> list[LineEntry]:
    """The entries of customer creation's answer (activate_line's too), one per line, in the plans' order.
    `pins`: those intake just gave (no read for them unless the line is an eSIM's, whose profile is needed)."""
    pins = pins or {}
    known = {plan.enrollment_id: Extras(pins[plan.enrollment_id], None) for plan in plans if plan.enrollment_id in pins}
    wanted = [plan.enrollment_id for plan in plans if plan.enrollment_id not in known or plan.esim]
    extras = {**known, **(await line_extras(ctx, wanted) if wanted else {})}
    return [
        LineEntry.of(plan, invoice_number, pin=extras[plan.enrollment_id].pin, esim=extras[plan.enrollment_id].esim)
        for plan in plans
    ]


async def line_extras(ctx: Context, enrollment_ids: Collection[str]) -> dict[str, Extras]:
    """Each line's PIN and eSIM profile, both sealed in its row (never in a workflow's history, which would keep
    them in the clear). A line made before every customer had a PIN gets one now, once."""
    async with ctx.uow.transaction() as session:
        sealed = await sealed_extras(session, enrollment_ids)
        without = [enrollment_id for enrollment_id, (pin, _) in sealed.items() if pin is None]
        for enrollment_id in without:
            await give_pin(session, enrollment_id, ctx.cipher.encrypt(new_pin()))
        if without:
            sealed = await sealed_extras(session, enrollment_ids)
    found = {}
    for enrollment_id, (pin, profile) in sealed.items():
        assert pin is not None  # given above
        esim = None
        if profile is not None:
            opened = ctx.cipher.open(profile, EsimDocument)
            esim = EsimProfile.of(opened["iccid"], opened["activation_code"])
        found[enrollment_id] = Extras(ctx.cipher.decrypt(pin), esim)
    return found


# ---- a line once created ----------------------------------------------------------------------------------------


@action("customer", sources=WEB_SOURCES, example=CREATED)
async def activate_line(*, body: ActivateLine, ctx: Context) -> list[LineEntry]:
    """Activates a line created with activation_later=Y (a new SIM, esn or uiccid, may replace the attached one)
    through its workflow's `activate` update, whose validator refuses any other state before it reaches history;
    answers as customer creation does."""
    return await activate(ctx, body.enrollment_id, esn=body.esn, iccid=body.uiccid)


@action("inventory", example=CREATED)
async def new_number_activation_with_zip_code(*, body: NewNumberActivation, ctx: Context) -> list[LineEntry]:
    """activate_line as the mobile channels call it: the line waiting for activation gets a new number in the
    area of `zip_code` (a SIM sent with it replaces the attached one)."""
    if state_of_zip(body.zip_code) is None:
        raise refuse(f"Zip code {body.zip_code} is not in a served area")
    return await activate(ctx, body.enrollment_id, esn=body.esn, iccid=body.sim_number, zip_code=body.zip_code)


async def activate(
    ctx: Context, enrollment_id: str, *, esn: str | None, iccid: str | None, zip_code: str | None = None
) -> list[LineEntry]:
    """The line's workflow's `activate` update, answered as customer creation answers."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, enrollment_id, vendor_id=ctx.caller.vendor_id)
        waiting = line is not None and line.status == LineStatus.WAITING_ACTIVATION
        refused = await activation_refusal(session, line) if line is not None and waiting else None
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.status == LineStatus.ACTIVE:
        return await already_active(ctx, line, sim=esn or iccid)
    if line.status != LineStatus.WAITING_ACTIVATION:
        raise refuse(not_waiting_for_activation(line.status), rest_status=409)
    if refused is not None:
        raise refused
    wait = ctx.settings.enrollment.sync_wait_seconds
    client = await ctx.temporal_client()
    # Its workflow, started here if the order has not started it yet (the channel asked right after creation).
    start = WithStartWorkflowOperation(
        LineWorkflow.run, line_start(line, ctx.caller.vendor_code, ctx.settings), **_line_options(line, ctx.settings)
    )
    try:
        async with ctx.outside("The carrier", within=wait + ctx.lookup_seconds()):
            progress: LineProgress = await client.execute_update_with_start_workflow(
                LineWorkflow.activate, Activation(wait, esn, iccid, zip_code), start_workflow_operation=start
            )
    except WorkflowUpdateFailedError as failure:  # another request activated it meanwhile
        raise refuse(str(getattr(failure.cause, "message", failure.cause)), rest_status=409) from None
    except WorkflowAlreadyStartedError:  # its workflow ended: the line was ported in meanwhile
        raise refuse(not_waiting_for_activation("porting"), rest_status=409) from None
    finally:
        await started_anyway(start)
    async with ctx.uow.transaction() as session:
        line = await session.get(Line, enrollment_id) or line  # as the activation left it
    plan = replace(plan_of(line), status=progress.status, mdn=progress.mdn, msid=progress.msid, msl=progress.msl)
    return await line_entries(ctx, [plan], invoice_number=line.invoice_number)


async def already_active(ctx: Context, line: Line, *, sim: str | None) -> list[LineEntry]:
    """The original's channels create the customer, then ask for its activation: a line checkout already
    activated answers with its entry and MDN, and nothing goes to the carrier or its workflow. Another SIM is
    refused rather than ignored, or the channel would tell its customer that SIM was activated."""
    own = line.iccid or line.esn
    if sim is not None and sim not in (line.iccid, line.esn):
        raise refuse(active_on_another_sim(own), rest_status=409)
    entries = await line_entries(ctx, [plan_of(line)], invoice_number=line.invoice_number)
    return [entry.model_copy(update={"msg": ALREADY_ACTIVE}) for entry in entries]


async def activation_refusal(session: Session, line: Line) -> LineupError | None:
    """The refusal (402) of a line waiting for activation that may not activate yet: its vendor requires payment
    (`lineup vendor set --require-payment`) and the account's settled payments do not cover its plan."""
    vendor = await session.get(Vendor, line.vendor_id)
    if vendor is None or not vendor.require_payment:
        return None
    account = await account_plans(session, line.vendor_id, line.parent_enrollment_id)
    family = {line.parent_enrollment_id, line.enrollment_id, *(eid for eid, _plan, _status in account)}
    paid = await paid_plans(session, line.vendor_id, family)
    missing = uncovered(account, paid, {line.enrollment_id: line.plan_id})
    return refuse(unpaid(line.plan_id), rest_status=402) if line.plan_id in missing else None


def line_start(line: Line, vendor_code: str, settings: Settings) -> LineStart:
    """The input the line's order gives its workflow, rebuilt from the line's row: the API starts the workflow
    itself when a channel asks for the line (an activation, a port) before its order has; whichever start comes
    second finds it running."""
    return LineStart(
        plan_of(line), line.order_id, line.parent_enrollment_id, vendor_code, line.agent_username, Pacing.of(settings)
    )


class LineOptions(StartOnce):
    id: str
    task_queue: str
    task_timeout: timedelta
    search_attributes: TypedSearchAttributes


def _line_options(line: Line, settings: Settings) -> LineOptions:
    return LineOptions(
        id=line_workflow_id(line.enrollment_id),
        task_queue=settings.temporal.task_queue,
        **START_ONCE,
        task_timeout=timedelta(seconds=settings.temporal.workflow_task_timeout_seconds),
        search_attributes=line_attributes(
            plan_of(line), parent_enrollment_id=line.parent_enrollment_id, agent_id=line.agent_username
        ),
    )


async def tell_gave_way(ctx: Context, enrollment_ids: Collection[str]) -> None:
    """The port orders intake cancelled for a newer port (models.porting.admit_ports) end their workflows, told once
    the request's transaction has committed. A workflow not told (the engine away) ends by its own port-in limit;
    its order stays CANCELLED (models.porting.store_view)."""
    if not enrollment_ids:
        return
    try:
        client = await ctx.temporal_client()
        for enrollment_id in enrollment_ids:
            await client.get_workflow_handle(port_workflow_id(enrollment_id)).signal(PortInWorkflow.gave_way)
    except (RPCError, LineupError) as problem:
        log.warning("ports %s gave way; not told: %s", ",".join(enrollment_ids), type(problem).__name__)


async def hand_over(client: Client, line: Line, *, vendor_code: str, settings: Settings) -> None:
    """A line waiting for activation is ported in: its workflow (started now if the order has not yet) stops
    waiting for activate_line and ends; the port's workflow activates the line on the ported number."""
    start = line_start(line, vendor_code, settings)
    with contextlib.suppress(WorkflowAlreadyStartedError):  # it ended already: nothing waits to be handed over
        await client.start_workflow(LineWorkflow.run, start, start_signal="hand_over", **_line_options(line, settings))


@action("customer", sources=WEB_SOURCES, example=CUSTOMER_INFO)
async def customer_info(*, body: CustomerInfo, ctx: Context) -> list[CustomerLine]:
    """The calling vendor's customers matching an enrollment id, a customer id or an e-mail (which may match
    several), one element per line of their accounts: the matching lines first, then their accounts' other
    lines, oldest first."""
    vendor_id = ctx.caller.vendor_id
    found: list[Line | None]
    async with ctx.uow.transaction() as session:
        if body.enrollment_id is not None:
            found = [await vendor_line(session, body.enrollment_id, vendor_id=vendor_id)]
        elif body.customer_id is not None:
            found = [await customer_line(session, customer_id=body.customer_id, vendor_id=vendor_id)]
        else:
            assert body.email is not None  # CustomerInfo needs one of the three
            found = list(await email_lines(session, cipher=ctx.cipher, email=body.email, vendor_id=vendor_id))
        matched = [line for line in found if line is not None and line.cust_id is not None]
        if not matched:
            raise refuse(NO_RECORD, rest_status=404)
        cust_ids = dict.fromkeys(line.cust_id for line in matched if line.cust_id is not None)
        held = await accounts_lines(session, cust_ids=cust_ids, vendor_id=vendor_id)
    first = {line.enrollment_id for line in matched}
    held = [row for row in held if row[0].customer_id is not None]
    held.sort(key=lambda row: row[0].enrollment_id not in first)  # stable: each group stays oldest first
    pins = await line_extras(ctx, [line.enrollment_id for line, _, _ in held])
    return [
        CustomerLine.of(
            line, pii=ctx.cipher.open(line.pii, Fields), zip_code=zip_code, plan=plan, pin=pins[line.enrollment_id].pin
        )
        for line, zip_code, plan in held
    ]


@action("customer", interface=True, sources=WEB_SOURCES, example=INQUIRY)
async def line_inquiry(*, body: LineInquiry, ctx: Context) -> LineInquiryData:
    """Asks the carrier about a line, as the flags select (none set: everything); a number the carrier does
    not hold for the vendor (909) passes through as the carrier said it."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    flags = {name: getattr(body, name) == "Y" for name in INQUIRY_FLAGS}
    if not any(flags.values()):
        flags = dict.fromkeys(INQUIRY_FLAGS, True)
    budget = ctx.settings.systems.lookup_budget_seconds
    inquiry = InquiryRequest(body.enrollment_id, ctx.caller.vendor_code, budget_seconds=budget, **flags)
    workflow_id = inquiry_workflow_id(body.enrollment_id, ctx.request_id)
    answer = await run_lookup(ctx, LineInquiryWorkflow.run, inquiry, workflow_id=workflow_id)
    return LineInquiryData.of(answer, mdn=line.mdn, esn=line.iccid or line.esn)


ESIM = EsimProfile.of("8901261234567890128", LPA_EXAMPLE)


# Sources: the interface's core three, as the mobile channels that install eSIMs call it (TABLET among them).
@action("customer", example=ESIM)
async def assign_esim(*, body: AssignEsim, ctx: Context) -> EsimProfile:
    """The line's eSIM profile {ICCID, ACTIVATION_CODE, QR_ACTIVATION_CODE, QR_CODE_IMAGE}: the one it has, or
    one the carrier reserves now (EsimAssignmentWorkflow, its activity sealing it in the line) for a line waiting
    for activation without a SIM, which its activation then uses; asked again, the same. A physical SIM's line is
    refused, as another vendor's enrollment id is (it names nothing)."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.esim_profile is None:
        if line.physical_sim:
            raise refuse(PHYSICAL_SIM, rest_status=409)
        if line.status != LineStatus.WAITING_ACTIVATION:  # its activation (under way) brings the profile
            raise refuse(not_waiting_for_activation(line.status), rest_status=409)
        budget = ctx.settings.systems.lookup_budget_seconds
        request = EsimRequest(line.enrollment_id, ctx.caller.vendor_code, budget_seconds=budget)
        workflow_id = esim_workflow_id(line.enrollment_id)
        await run_lookup(ctx, EsimAssignmentWorkflow.run, request, workflow_id=workflow_id, shared=True)
    profile = (await line_extras(ctx, [line.enrollment_id]))[line.enrollment_id].esim
    assert profile is not None  # sealed by the activity before its workflow answered
    return profile


# ---- supporting operations --------------------------------------------------------------------------------------


@action("enrollment", example=AVAILABILITY)
async def check_service_availability(*, body: CheckServiceAvailability, ctx: Context) -> Availability:
    """Issues a new, unused enrollment id for a ZIP the service covers, with its city and state as USPS names
    them. The id is 'E' and 80 random bits in base32: unguessable, so ids cannot be enumerated."""
    state = state_of_zip(body.zip_code)
    if state is None:
        raise refuse(NOT_SERVED)
    slot = Enrollment(
        enrollment_id="E" + base64.b32encode(secrets.token_bytes(10)).decode(),
        vendor_id=ctx.caller.vendor_id,
        zip_code=body.zip_code,
        state=state,
        enrollment_type=body.enrollment_type,
        issued_by=ctx.caller.agent_username,
    )
    async with ctx.uow.transaction() as session:
        session.add(slot)
    city = city_of_zip(body.zip_code)
    return Availability(
        enrollment_id=slot.enrollment_id, zip_code=body.zip_code, city=city, state=state, carriers=CARRIERS_SOLD
    )


@action("plan", example=PLANS, reads_only=True)
async def plan_list(*, body: PlanList, ctx: Context) -> list[PlanItem]:
    """The plans a channel can sell: every active plan, one plan, or those sold in a ZIP (every covered ZIP sells
    them all)."""
    if body.zip_code is not None and state_of_zip(body.zip_code) is None:
        raise refuse(NOT_SERVED)
    query = select(Plan).where(col(Plan.active)).order_by(col(Plan.plan_id))
    if body.plan_id is not None:
        query = query.where(Plan.plan_id == int(body.plan_id))
    async with ctx.uow.transaction() as session:
        plans = (await session.exec(query)).all()
    if not plans:
        raise refuse(PLANS_NOT_FOUND, rest_status=404)
    return [PlanItem.of(plan) for plan in plans]


@action("enrollment", example=CARRIERS)
async def company_carrier_list(*, body: CompanyCarrierList, ctx: Context) -> list[CarrierItem]:
    """The carriers the company sells on, with the carrier's own numeric ids (query_portin takes either)."""
    query = CarrierListQuery(ctx.caller.vendor_code, budget_seconds=ctx.settings.systems.lookup_budget_seconds)
    workflow_id = lookup_workflow_id("carriers", ctx.request_id)
    return (await run_lookup(ctx, CarrierListWorkflow.run, query, workflow_id=workflow_id)).carriers
