"""The payment domain's data: payments through make_payment's saga, saved cards (gateway token, brand, last four;
never a CVV or a full number), tax calculations, the carrier's tax rates last seen and the calculations waiting
for the carrier; the guard's and the tax workflows' messages, the `/payment` requests and answers, their queries."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Literal, NamedTuple

from pydantic import AliasChoices, Field, PlainValidator, WithJsonSchema, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError
from sqlalchemy import ColumnElement, Index, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col, select

from models.auth import Vendor
from models.crypto import CardOnFile, FieldCipher
from models.db import Database, Session, UnitOfWork
from models.enrollment.lines import Enrollment, Line, Plan
from models.envelope import Budget, Shape, omitted_when_none, refuse
from models.events import EventType, record
from models.types import (
    ActionRequest,
    AddressLine,
    Alnum,
    CardHolder,
    CardNumber,
    City,
    ConditionalFields,
    Cvv,
    Iccid18to22,
    Month,
    ProcessorReference,
    State,
    Text32,
    Text64,
    Year4,
    YesNo,
    Zip5,
    blank,
    fail,
    sent,
    utcnow,
)


class PaymentStatus(StrEnum):
    """make_payment's saga: the intent is written before the card is charged, so money never moves unrecorded."""

    PENDING = "PENDING"  # intent recorded; the charge is under way or its answer not yet recorded
    APPROVED = "APPROVED"  # charged and recorded
    RECORDED = "RECORDED"  # paid elsewhere (OTHER_PAYMENT_OPTION, CASH): recorded, never charged
    DECLINED = "DECLINED"
    VOIDED = "VOIDED"  # charged, could not be recorded, the charge given back
    ABANDONED = "ABANDONED"  # the gateway never saw the charge


class TaxState(StrEnum):
    PENDING_COLLECTION = "PENDING_COLLECTION"
    COLLECTED_TEMPORARY = "COLLECTED_TEMPORARY"
    COLLECTED_FINAL = "COLLECTED_FINAL"


SETTLED_PAYMENTS = frozenset({PaymentStatus.APPROVED, PaymentStatus.RECORDED})
# A processor's reference is recorded once per vendor (decisions.md, "External payment references"); a pending
# card payment has none yet ("").
HAS_REFERENCE = "transaction_id <> ''"
MOST_PLANS = 20  # entries of one list: more than an order of LINEUP_MAX_LINES lines needs
MOST_MONTHS = 36
PLAN_LIST_RULE = "must be a plan id or a list of plan ids"
RETRYABLE = (PaymentStatus.DECLINED, PaymentStatus.VOIDED, PaymentStatus.ABANDONED)  # a new attempt may follow
IN_PROGRESS = "This payment is still being completed; ask again in a minute"
REFERENCE_TAKEN = "Payment reference already recorded"


class PaymentRecord(SQLModel, table=True):
    __tablename__ = "payment"
    __table_args__ = (
        Index(
            "uq_payment_vendor_reference",
            "vendor_id",
            "transaction_id",
            unique=True,
            sqlite_where=text(HAS_REFERENCE),
            postgresql_where=text(HAS_REFERENCE),
        ),
    )

    id: int | None = Column(default=None, primary_key=True)
    idempotency_key: str = Column(max_length=64, unique=True)
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    enrollment_id: str = Column(foreign_key="enrollment.enrollment_id", max_length=24, index=True)
    plan_id: int = Column(foreign_key="plan.plan_id")
    invoice_number: str = Column(max_length=32, unique=True)
    transaction_id: str = Column(max_length=255)  # the gateway's, or the external payment's reference
    payment_method: str = Column(default="CREDIT_CARD", max_length=24)  # CREDIT_CARD, OTHER_PAYMENT_OPTION, CASH
    status: str = Column(default=PaymentStatus.PENDING.value, max_length=16, index=True)
    attempt: int = 0  # a declined card may be tried again (a new card): each attempt its own gateway key
    card_on_file: str | None = None  # encrypted: expiry and holder of a card to save (never the number or CVV)
    updated_at: datetime | None = None
    payment_method_option: str | None = Column(default=None, max_length=32)  # e.g. STRIPE
    amount_cents: int
    tax_cents: int
    calc_id: str | None = Column(default=None, max_length=32)
    coupon_code: str | None = Column(default=None, max_length=64)
    coupon_transaction_id: str | None = Column(default=None, max_length=32)
    card_id: int | None = Column(default=None, foreign_key="saved_card.id")
    created_at: datetime = Column(default_factory=utcnow)
    plans: str | None = Column(default=None, max_length=400)  # `101:3,102:1` (as_text); None: plan_id, 1 month


class SavedCard(SQLModel, table=True):
    __tablename__ = "saved_card"

    id: int | None = Column(default=None, primary_key=True)
    vendor_id: int = Column(foreign_key="vendor.id")
    enrollment_id: str = Column(foreign_key="enrollment.enrollment_id", max_length=24, index=True)
    payment_token: str  # encrypted gateway token
    brand: str = Column(max_length=32)
    last4: str = Column(max_length=4)
    exp_month: str = Column(max_length=2)
    exp_year: str = Column(max_length=4)
    holder: str  # encrypted JSON: name on card and billing address
    status: str = Column(default="Y", max_length=1)
    created_at: datetime = Column(default_factory=utcnow)


class TaxCalculation(SQLModel, table=True):
    __tablename__ = "tax_calculation"

    calc_id: str = Column(primary_key=True, max_length=32)
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    invoice_number: str = Column(max_length=32)
    state: str = Column(max_length=2)
    amount_cents: int
    tax_cents: int
    status: str = Column(default=TaxState.PENDING_COLLECTION.value, max_length=24)
    iccid: str | None = Column(default=None, max_length=22)
    reference_number: str | None = Column(default=None, max_length=32)
    updated_at: datetime = Column(default_factory=utcnow)


class TaxRate(SQLModel, table=True):
    """The tax the carrier last gave for one month of a plan in a state, kept each time a quote succeeds, so that
    a payment is quoted from it while the carrier's tax service is down."""

    __tablename__ = "tax_rate"

    state: str = Column(primary_key=True, max_length=2)
    plan_id: int = Column(primary_key=True)
    amount_cents: int  # the plan's price the tax was given for (a new price is taxed in proportion)
    tax_cents: int
    items: str  # JSON [[tax name, cents], …]: the carrier's breakup of tax_cents
    quoted_at: datetime = Column(default_factory=utcnow)


class TaxRegistration(SQLModel, table=True):
    """A tax calculation make_payment quoted from held rates while the carrier was down: Lineup's calc_id (the one
    the channel holds), registered at the carrier once it is back under the payment's idempotency key (so once),
    and the carrier's own id for it, which collecting it uses."""

    __tablename__ = "tax_registration"

    calc_id: str = Column(primary_key=True, max_length=32)
    vendor_id: int = Column(foreign_key="vendor.id")
    idempotency_key: str = Column(max_length=64)  # the carrier's Idempotency-Key: the payment's quote's
    state: str = Column(max_length=2)
    amount_cents: int
    tax_cents: int  # charged, from the held rates
    carrier_calc_id: str | None = Column(default=None, max_length=32)
    carrier_tax_cents: int | None = None  # what the carrier computed once it registered it
    created_at: datetime = Column(default_factory=utcnow)
    registered_at: datetime | None = None


class PlanUnit(NamedTuple):
    """One plan of a payment, paid for `months` months."""

    plan_id: int
    months: int = 1


def plan_units(value: object) -> tuple[PlanUnit, ...]:
    """The plans a `plan_id` value names; blank is missing, anything else not a plan id or a list of them is
    refused with one message."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise blank()
    # {id, no_of_months} only inside a list, as the original sends it
    if isinstance(value, dict) or (isinstance(value, list) and not 1 <= len(value) <= MOST_PLANS):
        raise fail(PLAN_LIST_RULE)
    return tuple(_unit(entry) for entry in value) if isinstance(value, list) else (_unit(value),)


def _number(value: object, *, most: int) -> int | None:
    """A positive whole number given as a JSON number or its digits, at most `most`; None for anything else."""
    if isinstance(value, bool):
        return None
    text = str(value).strip() if isinstance(value, int | str) else ""
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        return None
    number = int(text)
    return number if 1 <= number <= most else None


def _unit(entry: object) -> PlanUnit:
    """One entry of a list: a plan id, or {id, no_of_months}."""
    given: dict[object, object] = entry if isinstance(entry, dict) else {"id": entry}
    plan = _number(given.get("id"), most=999_999_999)
    months = _number(given.get("no_of_months", 1), most=MOST_MONTHS)
    if set(given) - {"id", "no_of_months"} or plan is None or months is None:
        raise fail(PLAN_LIST_RULE)
    return PlanUnit(plan, months)


_ID = {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string", "pattern": "^[0-9]{1,9}$"}]}
_MONTHS = {
    "oneOf": [{"type": "integer", "minimum": 1, "maximum": MOST_MONTHS}, {"type": "string", "pattern": "^[0-9]{1,2}$"}]
}
_UNIT = {"type": "object", "required": ["id"], "properties": {"id": _ID, "no_of_months": _MONTHS}}


PlanIds = Annotated[
    tuple[PlanUnit, ...],
    PlainValidator(plan_units),
    WithJsonSchema(
        {
            "description": f"A plan id, a list of plan ids, or a list of {{id, no_of_months}} (at most {MOST_PLANS})",
            "examples": ["102", [101, 102], [{"id": 101, "no_of_months": 3}]],
            "oneOf": [_ID, {"type": "array", "minItems": 1, "maxItems": MOST_PLANS, "items": {"oneOf": [_ID, _UNIT]}}],
        }
    ),
]


@dataclass(frozen=True)
class PaymentGuard:
    """Input of PaymentGuardWorkflow, started before the card is charged."""

    idempotency_key: str  # the payment row's key
    attempt: int
    wait_seconds: float = 60.0  # how long the API has to record the gateway's answer before the guard does


@dataclass(frozen=True)
class TaxLine:
    name: str
    cents: int


@dataclass(frozen=True)
class TaxEstimateQuery(Budget):
    vendor_code: str
    state: str
    amount_cents: int


@dataclass(frozen=True)
class TaxEstimate:
    tax_cents: int
    items: list[TaxLine] = field(default_factory=list)  # the carrier's breakup, kept as the rates it gave


@dataclass(frozen=True)
class TaxQuote(TaxEstimateQuery):
    """Registers an order's tax calculation with the carrier (pending collection)."""

    idempotency_key: str = field(kw_only=True)


@dataclass(frozen=True)
class TaxQuoted(TaxEstimate):
    """An order's tax, registered as `calc_id`: the carrier's, or Lineup's while it waits for the carrier."""

    calc_id: str = field(kw_only=True)


@dataclass(frozen=True)
class TaxRegistrationJob:
    """Input of TaxRegistrationWorkflow: a calculation quoted from held rates, registered once the carrier is back
    (the tax_registration row holds what is registered)."""

    calc_id: str


@dataclass(frozen=True)
class CollectTax:
    """Input of TaxCollectionWorkflow."""

    calc_id: str
    vendor_code: str
    idle_days: float = 30.0  # no collection for this long: the workflow ends; the next update starts it again
    history_events: int = 4000  # continues as new past this many (LINEUP_WORKFLOW_HISTORY_EVENTS)


@dataclass(frozen=True)
class MarkCollected(Budget):
    iccid: str
    status: str  # temporary | final


@dataclass(frozen=True)
class TaxReceipt:
    calc_id: str
    status: TaxState
    reference_number: str | None = None
    description: str = ""


@dataclass(frozen=True)
class TaxCollect:
    calc_id: str
    vendor_code: str
    iccid: str
    status: str
    key: str = ""  # the carrier's Idempotency-Key: a retried activity collects once


# Lineup's name, then the original service's (decisions.md, "make_payment names").
NAMES = {
    "exp_month": ("exp_month", "expiration_month"), "exp_year": ("exp_year", "expiration_year"),
    "address1": ("address1", "billing_address1"), "address2": ("address2", "billing_address2"),
    "city": ("city", "billing_city"), "state": ("state", "billing_state"), "zip": ("zip", "billing_zip"),
    "payment_method_option": ("payment_method_option", "payment_option"),
    "transaction_id": ("transaction_id", "charge_id"),
}  # fmt: skip


CARD_FIELDS = ("card_number", "exp_month", "exp_year", "cvv", "name_on_card", "address1", "city", "state", "zip")
CARD, OTHER = "CREDIT_CARD", "OTHER_PAYMENT_OPTION"


def _also(name: str) -> FieldInfo:
    """The field under Lineup's name or the original service's."""
    field: FieldInfo = Field(validation_alias=AliasChoices(*NAMES[name]))
    return field


class MakePayment(ActionRequest, ConditionalFields):
    """Pays the plan's price plus tax: by card (the CVV goes to the gateway and nowhere else), or recorded as
    paid elsewhere (OTHER_PAYMENT_OPTION with its reference, or CASH) without reaching the gateway."""

    enrollment_id: Alnum
    plan_id: PlanIds
    payment_method: Literal["CREDIT_CARD", "OTHER_PAYMENT_OPTION", "CASH"] = "CREDIT_CARD"
    payment_method_option: Annotated[Text32 | None, _also("payment_method_option")] = None
    # The external payment's (or cash receipt's) reference, as its processor gives it.
    transaction_id: Annotated[ProcessorReference | None, _also("transaction_id")] = None
    card_number: CardNumber | None = None
    exp_month: Annotated[Month | None, _also("exp_month")] = None
    exp_year: Annotated[Year4 | None, _also("exp_year")] = None
    cvv: Cvv | None = None
    name_on_card: CardHolder | None = None
    card_type: Text32 | None = None  # accepted; the gateway says the brand
    address1: Annotated[AddressLine | None, _also("address1")] = None
    address2: Annotated[AddressLine | None, _also("address2")] = None
    city: Annotated[City | None, _also("city")] = None
    state: Annotated[State | None, _also("state")] = None
    zip: Annotated[Zip5 | None, _also("zip")] = None
    coupon_code: Text64 | None = None
    save_card: YesNo | None = None

    @classmethod
    def required_when(cls, data: Mapping[str, object]) -> dict[str, list[str]]:
        """A card payment needs the card and its billing address; a payment made elsewhere, its reference."""
        method = data.get("payment_method") or CARD
        if method == CARD:
            # The usual case: its fields are simply required (`Please enter Zip`).
            return {"": [f for f in CARD_FIELDS if not sent(data, *NAMES.get(f, (f,)))]}
        if method == OTHER:
            return {
                "an OTHER_PAYMENT_OPTION payment": [
                    f for f in ("payment_method_option", "transaction_id") if not sent(data, *NAMES[f])
                ]
            }
        return {}

    @model_validator(mode="after")
    def _not_expired(self) -> MakePayment:
        if self.by_card and self.exp_year is not None and self.exp_month is not None:
            today = date.today()
            if (int(self.exp_year), int(self.exp_month)) < (today.year, today.month):
                raise PydanticCustomError("rule", "Card has expired")
        return self

    @property
    def by_card(self) -> bool:
        return self.payment_method == CARD

    def __repr__(self) -> str:  # never let a card number reach a log through repr
        return f"MakePayment(enrollment_id={self.enrollment_id!r}, plan_id={list(self.plan_id)!r})"

    @property
    def recorded(self) -> bool:
        """Paid elsewhere (an external processor, or cash): recorded, never charged."""
        return self.payment_method != CARD


class PaymentDetails(ActionRequest):
    """What make_payment would charge for a plan: price, tax by name, total (for a ZIP or an enrollment id)."""

    plan_id: PlanIds
    zip_code: Zip5 | None = None
    enrollment_id: Alnum | None = None
    coupon_code: Text64 | None = None

    @model_validator(mode="after")
    def _where(self) -> PaymentDetails:
        if self.zip_code is None and self.enrollment_id is None:
            raise PydanticCustomError("rule", "Please enter Zip code or Enrollment Id")
        return self


class UpdateTaxCalculationStatus(ActionRequest):
    """Marks a tax calculation collected: `temporary` (provisional) or `final` (closes it)."""

    calc_id: Text32
    iccid: Iccid18to22
    status: Literal["temporary", "final"]


class Payment(Shape):
    invoice_number: str
    transaction_id: str
    calc_id: str | None
    amount: str
    tax_amount: str
    order_id: str
    payment_method: str
    payment_status: str  # SUCCESS: every answer is of a settled payment
    settlement: str  # how it settled: APPROVED (card charged) or RECORDED (paid elsewhere, or cash)
    total_amount: str
    plan_tax: str
    transaction_no: str
    coupon_transaction_id: str | None = omitted_when_none()
    card_id: str | None = omitted_when_none()


class TaxItem(Shape):
    tax_name: str
    tax_amount: str


class DetailedPlan(Shape):
    plan_id: str
    plan_name: str
    plan_price: str  # one month's
    no_of_months: str
    tax_breakup: list[TaxItem]


class PaymentDetailsData(Shape):
    state: str
    total_actual_amount: str
    total_tax: str
    total_amount: str
    plan: DetailedPlan | None = omitted_when_none()  # one plan
    plans: list[DetailedPlan] | None = omitted_when_none()  # a list of more than one


class TaxStatus(Shape):
    """Interface section 2.8."""

    STATUSCODE: str
    DESCRIPTION: str
    CALCID: str
    REFERENCENUMBER: str


PAYMENT = Payment(
    invoice_number="INV4829135671",
    transaction_id="ch_7Hq2Lm9Xa",
    calc_id="TX0482913567",
    amount="25.00",
    tax_amount="1.00",
    order_id="1042",
    payment_method="CREDIT_CARD",
    payment_status="SUCCESS",
    settlement="APPROVED",
    total_amount="26.00",
    plan_tax="1.00",
    transaction_no="ch_7Hq2Lm9Xa",
    card_id="7",
)
DETAILS = PaymentDetailsData(
    state="GA",
    total_actual_amount="25.00",
    total_tax="1.00",
    total_amount="26.00",
    plan=DetailedPlan(
        plan_id="102",
        plan_name="Everyday 5GB",
        plan_price="25.00",
        no_of_months="1",
        tax_breakup=[TaxItem(tax_name="State sales tax", tax_amount="1.00")],
    ),
)
TAX_STATUS = TaxStatus(
    STATUSCODE="00", DESCRIPTION="Tax collected", CALCID="TX0482913567", REFERENCENUMBER="830571926403"
)


def charge_key(idempotency_key: str, attempt: int) -> str:
    """The gateway's idempotency key for one attempt: a retried attempt never charges twice, and a new card
    after a decline is a new attempt (the gateway would answer the old key's decline again)."""
    return f"charge-{idempotency_key}-{attempt}"


def as_text(units: Iterable[PlanUnit]) -> str:
    """The plans as stored with a payment: `101:3,102:1`."""
    return ",".join(f"{unit.plan_id}:{unit.months}" for unit in units)


def from_text(text: str) -> tuple[PlanUnit, ...]:
    """The plans as stored with a payment, read back."""
    return tuple(PlanUnit(int(plan), int(months)) for plan, months in (item.split(":") for item in text.split(",")))


async def record_intent(
    uow: UnitOfWork,
    payment: PaymentRecord,
    cipher: FieldCipher,
    *,
    retry: bool,
    card_on_file: str | None = None,
    settle_as: str | None = None,
) -> None:
    """The payment, pending, before any money moves (`retry`: a declined, given back or never made payment's next
    attempt); with `settle_as` (a payment made elsewhere), settled at once as RECORDED under that reference. A
    reference another payment of the vendor holds is refused; the same request twice at once goes on in the one
    that won."""
    try:
        async with uow.transaction() as session:
            if retry:
                attempt = payment.attempt + 1
                moved = await _move(
                    session,
                    payment,
                    before=RETRYABLE,
                    status=PaymentStatus.PENDING,
                    attempt=attempt,
                    card_on_file=card_on_file,
                )
            else:
                payment.card_on_file = card_on_file
                session.add(payment)
                await session.flush()
                moved = True
            if moved and settle_as is not None:
                await settle_paid(session, payment, cipher, status=PaymentStatus.RECORDED, transaction_id=settle_as)
    except IntegrityError:
        # The same request twice at once (the one that won goes on), or another request that recorded the same
        # processor reference first (the unique index on references).
        async with uow.transaction() as session:
            holder = await reference_holder(session, payment.vendor_id, settle_as) if settle_as else None
        if holder is not None and holder.idempotency_key != payment.idempotency_key:
            raise refuse(REFERENCE_TAKEN, rest_status=409) from None
        moved = False
    if not moved:
        raise refuse(IN_PROGRESS, rest_status=409)


async def settle_failed(session: Session, payment: PaymentRecord, status: PaymentStatus) -> bool:
    """The pending attempt ended without money taken: DECLINED, ABANDONED, or VOIDED (given back)."""
    return await _move(session, payment, before=(PaymentStatus.PENDING,), status=status, card_on_file=None)


async def settle_paid(
    session: Session,
    payment: PaymentRecord,
    cipher: FieldCipher,
    *,
    status: PaymentStatus,
    transaction_id: str,
    card: dict[str, str] | None = None,
) -> bool:
    """The pending attempt paid: the payment, the card to save (the gateway's token, brand and last four,
    with the expiry and holder kept on file), and the tax calculation the carrier registered."""
    on_file = cipher.open(payment.card_on_file, CardOnFile) if card is not None and payment.card_on_file else None
    if not await _move(
        session,
        payment,
        before=(PaymentStatus.PENDING,),
        status=status,
        transaction_id=transaction_id,
        card_on_file=None,
    ):
        return False
    record(
        session,
        payment.enrollment_id,
        EventType.PAYMENT_RECORDED,
        line=await session.get(Line, payment.enrollment_id),  # none yet when the payment comes first
        vendor_id=payment.vendor_id,
        invoice_number=payment.invoice_number,
        status=payment.status,
        method=payment.payment_method,
        amount_cents=payment.amount_cents,
        tax_cents=payment.tax_cents,
    )
    slot = await session.get(Enrollment, payment.enrollment_id)
    assert slot is not None  # the payment's foreign key
    if card is not None and on_file is not None:
        await _save_card(session, payment, cipher, card, on_file)
    if payment.calc_id is not None and await session.get(TaxCalculation, payment.calc_id) is None:
        session.add(
            TaxCalculation(
                calc_id=payment.calc_id,
                vendor_id=payment.vendor_id,
                invoice_number=payment.invoice_number,
                state=slot.state,
                amount_cents=payment.amount_cents,
                tax_cents=payment.tax_cents,
            )
        )
    return True


async def active_plans(session: Session, units: tuple[PlanUnit, ...]) -> dict[int, Plan] | None:
    """The plans a payment names, by id; None when one of them is not an active plan of the plan list."""
    ids = {unit.plan_id for unit in units}
    found = (await session.exec(select(Plan).where(col(Plan.plan_id).in_(ids), col(Plan.active)))).all()
    plans = {plan.plan_id: plan for plan in found}
    return plans if set(plans) == ids else None


async def reference_holder(session: Session, vendor_id: int, reference: str) -> PaymentRecord | None:
    """The vendor's payment that recorded this processor reference, if one did."""
    query = select(PaymentRecord).where(
        col(PaymentRecord.vendor_id) == vendor_id, col(PaymentRecord.transaction_id) == reference
    )
    return (await session.exec(query)).first()


async def settled_invoice(session: Session, vendor_id: int, invoice_number: str, enrollment_ids: set[str]) -> bool:
    """True when `invoice_number` is a settled payment of the vendor for one of these enrollment ids."""
    query = select(PaymentRecord.id).where(
        col(PaymentRecord.invoice_number) == invoice_number, *_settled(vendor_id, enrollment_ids)
    )
    return (await session.exec(query)).first() is not None


async def paid_plans(session: Session, vendor_id: int, enrollment_ids: set[str]) -> list[int]:
    """The plan ids settled payments of the vendor cover for these enrollment ids, one entry per line a plan is
    paid for (a plan listed twice pays for two lines; its months say for how long, not for how many)."""
    query = select(PaymentRecord.plan_id, PaymentRecord.plans).where(*_settled(vendor_id, enrollment_ids))
    covered: list[int] = []
    for plan_id, plans in (await session.exec(query)).all():
        covered += [unit.plan_id for unit in from_text(plans)] if plans else [plan_id]
    return covered


async def account_plans(session: Session, vendor_id: int, parent_enrollment_id: str) -> list[tuple[str, int, str]]:
    """(enrollment id, plan id, status) of every line of the vendor's account under this parent."""
    query = select(Line.enrollment_id, Line.plan_id, Line.status).where(
        col(Line.vendor_id) == vendor_id, col(Line.parent_enrollment_id) == parent_enrollment_id
    )
    return [(eid, plan_id, status) for eid, plan_id, status in (await session.exec(query)).all()]


async def hold(db: Database, state: str, rates: Iterable[tuple[int, int, int, list[TaxLine]]]) -> None:
    """Keeps (plan id, price, tax, items) as the rates of `state` now; best effort: two payments holding the same
    plan's rate at once keep either's (both the carrier's), and nothing here ever fails a payment."""
    try:
        async with db.transaction() as session:
            for plan_id, amount, tax, items in rates:
                breakup = json.dumps([[item.name, item.cents] for item in items])
                row = await session.get(TaxRate, (state, plan_id))
                if row is None:
                    row = TaxRate(state=state, plan_id=plan_id, amount_cents=amount, tax_cents=tax, items=breakup)
                row.amount_cents, row.tax_cents, row.items, row.quoted_at = amount, tax, breakup, utcnow()
                session.add(row)
    except IntegrityError:
        return


async def held(session: Session, state: str, plan_ids: set[int]) -> dict[int, TaxRate]:
    """The rates held for these plans in `state` (a plan without one is missing from the answer)."""
    query = select(TaxRate).where(col(TaxRate.state) == state, col(TaxRate.plan_id).in_(plan_ids))
    return {rate.plan_id: rate for rate in (await session.exec(query)).all()}


def items_of(rate: TaxRate) -> list[TaxLine]:
    return [TaxLine(str(name), int(cents)) for name, cents in json.loads(rate.items)]


async def add_registration(session: Session, registration: TaxRegistration) -> TaxRegistration:
    """The registration waiting for the carrier; the one already there for its calc id (a repeated payment)."""
    if (found := await session.get(TaxRegistration, registration.calc_id)) is not None:
        return found
    session.add(registration)
    await session.flush()
    return registration


async def waiting_registration(session: Session, calc_id: str) -> tuple[TaxRegistration, str] | None:
    """A calculation quoted from held rates, with its vendor's code (what the carrier knows it by); None for a
    calculation the carrier registered itself (its id is the carrier's)."""
    query = select(TaxRegistration, Vendor.code).join(Vendor, col(Vendor.id) == col(TaxRegistration.vendor_id))
    found = (await session.exec(query.where(col(TaxRegistration.calc_id) == calc_id))).first()
    return (found[0], found[1]) if found is not None else None


async def registered(session: Session, calc_id: str, *, carrier_calc_id: str, carrier_tax_cents: int) -> None:
    """The carrier took it: its id for the calculation (the first answer kept; a repeat gets the same one)."""
    await session.execute(
        update(TaxRegistration)
        .where(col(TaxRegistration.calc_id) == calc_id, col(TaxRegistration.carrier_calc_id).is_(None))
        .values(carrier_calc_id=carrier_calc_id, carrier_tax_cents=carrier_tax_cents, registered_at=utcnow())
    )


async def tax_collected(session: Session, calc: TaxCalculation, status: str) -> None:
    """A tax calculation collected, for the enrollment whose payment registered it."""
    payment = (await session.exec(select(PaymentRecord).where(PaymentRecord.calc_id == calc.calc_id))).first()
    if payment is not None and calc.status != status:
        record(
            session,
            payment.enrollment_id,
            EventType.TAX_COLLECTED,
            line=await session.get(Line, payment.enrollment_id),
            vendor_id=calc.vendor_id,
            calc_id=calc.calc_id,
            status=status,
        )


async def _move(session: Session, payment: PaymentRecord, *, before: tuple[str, ...], **values: object) -> bool:
    """Moves the payment's current attempt out of one of `before`; False when another writer got there first."""
    moved = await session.run(
        update(PaymentRecord)
        .where(col(PaymentRecord.id) == payment.id, col(PaymentRecord.attempt) == payment.attempt)
        .where(col(PaymentRecord.status).in_(before))
        .values(updated_at=utcnow(), **values)
    )
    if moved != 1:
        return False
    for name, value in values.items():  # the row says so already: no second UPDATE at flush
        set_committed_value(payment, name, value)
    return True


def _settled(vendor_id: int, enrollment_ids: set[str]) -> tuple[ColumnElement[bool], ...]:
    """Where a payment is a settled one of the vendor for one of these enrollment ids."""
    return (
        col(PaymentRecord.vendor_id) == vendor_id,
        col(PaymentRecord.enrollment_id).in_(enrollment_ids),
        col(PaymentRecord.status).in_(SETTLED_PAYMENTS),
    )


async def _save_card(
    session: Session, payment: PaymentRecord, cipher: FieldCipher, card: dict[str, str], on_file: CardOnFile
) -> None:
    saved = SavedCard(
        vendor_id=payment.vendor_id,
        enrollment_id=payment.enrollment_id,
        payment_token=cipher.encrypt(card["token"]),
        brand=card["brand"] or "Card",
        last4=card["last4"],
        exp_month=on_file["exp_month"],
        exp_year=on_file["exp_year"],
        holder=cipher.seal(on_file["holder"]),
    )
    session.add(saved)
    await session.flush()
    await session.execute(update(PaymentRecord).where(col(PaymentRecord.id) == payment.id).values(card_id=saved.id))
    set_committed_value(payment, "card_id", saved.id)
