"""Tables of the enrollment domain: plans (seeded; `plan_list` and the payment operations read them),
enrollment ids and the lines (customers) created from them.

PII never leaves these rows in the clear: names, addresses and contact details are one encrypted JSON
document per line (`pii`). Workflows carry enrollment ids only."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, text
from sqlmodel import Field, SQLModel

from models.clock import utcnow
from models.statuses import LineStatus


class Plan(SQLModel, table=True):
    __tablename__ = "plan"

    plan_id: int = Field(primary_key=True)
    plan_code: str = Field(max_length=32, unique=True)  # the carrier's code for the plan
    name: str = Field(max_length=100)
    description: str = Field(default="", max_length=200)  # features, as channels display them
    price_cents: int
    carrier: str = Field(max_length=16)
    # Allowances per month; None is unlimited.
    talk_minutes: int | None = None
    text_messages: int | None = None
    data_mb: int | None = None
    active: bool = True


class Enrollment(SQLModel, table=True):
    """An enrollment id issued by check_service_availability; claimed by at most one request."""

    __tablename__ = "enrollment"

    enrollment_id: str = Field(primary_key=True, max_length=24)
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    zip_code: str = Field(max_length=5)
    state: str = Field(max_length=2)
    enrollment_type: str = Field(default="NON_LIFELINE", max_length=16)
    issued_by: str | None = Field(default=None, max_length=100)
    issued_at: datetime = Field(default_factory=utcnow)
    claimed_by: str | None = Field(default=None, max_length=120, index=True)  # the enrollment workflow id
    claimed_at: datetime | None = None


class Line(SQLModel, table=True):
    """One line of an enrollment request: its customer record, device and activation state."""

    __tablename__ = "line"
    # One active line per number: the backstop behind intake's refusal and the port-out marking.
    __table_args__ = (
        Index(
            "uq_line_active_mdn",
            "mdn",
            unique=True,
            sqlite_where=text("status = 'ACTIVE'"),
            postgresql_where=text("status = 'ACTIVE'"),
        ),
    )

    enrollment_id: str = Field(primary_key=True, foreign_key="enrollment.enrollment_id", max_length=24)
    parent_enrollment_id: str = Field(max_length=24, index=True)
    order_id: str = Field(max_length=120, index=True)  # the enrollment workflow id
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    agent_username: str | None = Field(default=None, max_length=100)
    plan_id: int = Field(foreign_key="plan.plan_id")
    activation_type: str = Field(max_length=16)
    enrollment_type: str = Field(max_length=16)
    activation_later: bool = False
    phone_type: str | None = Field(default=None, max_length=8)
    device_type: str | None = Field(default=None, max_length=8)
    brand_code: str | None = Field(default=None, max_length=8)
    sku_type: str | None = Field(default=None, max_length=8)
    model_id: str | None = Field(default=None, max_length=64)
    device_id: str | None = Field(default=None, max_length=64)
    iccid: str | None = Field(default=None, max_length=22)
    is_esim: bool = False  # the carrier assigns an eSIM profile at activation
    esim_profile: str | None = None  # encrypted JSON: the profile's ICCID and activation code
    esn: str | None = Field(default=None, max_length=32)
    carrier: str | None = Field(default=None, max_length=32)
    invoice_number: str | None = Field(default=None, max_length=32)
    coupon_code: str | None = Field(default=None, max_length=64)
    email_hash: str = Field(max_length=64, index=True)  # sha256 of the lower-cased e-mail: customer login
    password_hash: str | None = Field(default=None, max_length=255)
    pin: str | None = None  # encrypted: the customer's 4-digit account PIN (None only on lines made before it)
    pii: str  # encrypted JSON: names, e-mail, phones, service and billing addresses
    customer_id: str | None = Field(default=None, max_length=16, unique=True)
    cust_id: str | None = Field(default=None, max_length=16)
    status: str = Field(default=LineStatus.RECEIVED.value, max_length=24, index=True)
    last_error: str | None = Field(default=None, max_length=500)
    status_since: datetime = Field(default_factory=utcnow)
    mdn: str | None = Field(default=None, max_length=10, index=True)
    released_mdn: str | None = Field(default=None, max_length=10)  # the number it gave back for a ported one
    msid: str | None = Field(default=None, max_length=16)
    msl: str | None = Field(default=None, max_length=8)
    shipment_reference: str | None = Field(default=None, max_length=32)
    activated_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)

    @property
    def physical_sim(self) -> bool:
        """A SIM or ESN attached that is no eSIM profile: such a line gets no eSIM (assign_esim)."""
        return not self.is_esim and (self.iccid is not None or self.esn is not None)
