"""Payments, saved cards (gateway token, brand, last four — never a CVV or a full number), tax calculations,
the carrier's tax rates last seen and the calculations waiting for the carrier."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, text
from sqlmodel import Field, SQLModel

from models.clock import utcnow
from models.statuses import PaymentStatus, TaxStatus

# A processor's reference is recorded once per vendor (decisions.md, "External payment references"); a pending
# card payment has none yet ("").
HAS_REFERENCE = "transaction_id <> ''"


class Payment(SQLModel, table=True):
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

    id: int | None = Field(default=None, primary_key=True)
    idempotency_key: str = Field(max_length=64, unique=True)
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    enrollment_id: str = Field(foreign_key="enrollment.enrollment_id", max_length=24, index=True)
    plan_id: int = Field(foreign_key="plan.plan_id")
    invoice_number: str = Field(max_length=32, unique=True)
    transaction_id: str = Field(max_length=255)  # the gateway's, or the external payment's reference
    payment_method: str = Field(default="CREDIT_CARD", max_length=24)  # CREDIT_CARD, OTHER_PAYMENT_OPTION, CASH
    status: str = Field(default=PaymentStatus.PENDING.value, max_length=16, index=True)
    attempt: int = 0  # a declined card may be tried again (a new card): each attempt its own gateway key
    card_on_file: str | None = None  # encrypted: expiry and holder of a card to save (never the number or CVV)
    updated_at: datetime | None = None
    payment_method_option: str | None = Field(default=None, max_length=32)  # e.g. STRIPE
    amount_cents: int
    tax_cents: int
    calc_id: str | None = Field(default=None, max_length=32)
    coupon_code: str | None = Field(default=None, max_length=64)
    coupon_transaction_id: str | None = Field(default=None, max_length=32)
    card_id: int | None = Field(default=None, foreign_key="saved_card.id")
    created_at: datetime = Field(default_factory=utcnow)
    plans: str | None = Field(default=None, max_length=400)  # `101:3,102:1` (models.plans); None: plan_id, 1 month


class SavedCard(SQLModel, table=True):
    __tablename__ = "saved_card"

    id: int | None = Field(default=None, primary_key=True)
    vendor_id: int = Field(foreign_key="vendor.id")
    enrollment_id: str = Field(foreign_key="enrollment.enrollment_id", max_length=24, index=True)
    payment_token: str  # encrypted gateway token
    brand: str = Field(max_length=32)
    last4: str = Field(max_length=4)
    exp_month: str = Field(max_length=2)
    exp_year: str = Field(max_length=4)
    holder: str  # encrypted JSON: name on card and billing address
    status: str = Field(default="Y", max_length=1)
    created_at: datetime = Field(default_factory=utcnow)


class TaxCalculation(SQLModel, table=True):
    __tablename__ = "tax_calculation"

    calc_id: str = Field(primary_key=True, max_length=32)
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    invoice_number: str = Field(max_length=32)
    state: str = Field(max_length=2)
    amount_cents: int
    tax_cents: int
    status: str = Field(default=TaxStatus.PENDING_COLLECTION.value, max_length=24)
    iccid: str | None = Field(default=None, max_length=22)
    reference_number: str | None = Field(default=None, max_length=32)
    updated_at: datetime = Field(default_factory=utcnow)


class TaxRate(SQLModel, table=True):
    """The tax the carrier last gave for one month of a plan in a state, kept each time a quote succeeds, so that
    a payment is quoted from it while the carrier's tax service is down (issue 27, finding 15)."""

    __tablename__ = "tax_rate"

    state: str = Field(primary_key=True, max_length=2)
    plan_id: int = Field(primary_key=True)
    amount_cents: int  # the plan's price the tax was given for (a new price is taxed in proportion)
    tax_cents: int
    items: str  # JSON [[tax name, cents], …]: the carrier's breakup of tax_cents
    quoted_at: datetime = Field(default_factory=utcnow)


class TaxRegistration(SQLModel, table=True):
    """A tax calculation make_payment quoted from held rates while the carrier was down: Lineup's calc_id (the one
    the channel holds), registered at the carrier once it is back under the payment's idempotency key (so once),
    and the carrier's own id for it, which collecting it uses."""

    __tablename__ = "tax_registration"

    calc_id: str = Field(primary_key=True, max_length=32)
    vendor_id: int = Field(foreign_key="vendor.id")
    idempotency_key: str = Field(max_length=64)  # the carrier's Idempotency-Key: the payment's quote's
    state: str = Field(max_length=2)
    amount_cents: int
    tax_cents: int  # charged, from the held rates
    carrier_calc_id: str | None = Field(default=None, max_length=32)
    carrier_tax_cents: int | None = None  # what the carrier computed once it registered it
    created_at: datetime = Field(default_factory=utcnow)
    registered_at: datetime | None = None
