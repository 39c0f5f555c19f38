"""Tables of the agents domain: agents (the people behind `agent_id`), the locations they report and the
signature images (PNG or JPEG, at most 2 MiB) they save, optionally for an enrollment."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from models.clock import utcnow

# `payments` records payments taken outside Lineup (make_payment CASH or OTHER_PAYMENT_OPTION): a vendor grants it
# to its storefronts' and cash desks' agents; `support` uses /ops and the console. No role implies another.
ROLES = ("agent", "payments", "support", "admin")


class Agent(SQLModel, table=True):
    __tablename__ = "agent"
    # A username is its vendor's own: every storefront of the original names its agent `ewebsiteapi`, and an
    # agent_id is resolved within the caller's vendor (decisions.md, "Agents per vendor").
    __table_args__ = (UniqueConstraint("vendor_id", "username", name="uq_agent_vendor_username"),)

    id: int | None = Field(default=None, primary_key=True)
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    username: str = Field(max_length=100)
    email: str | None = Field(default=None, max_length=254)
    roles: str = Field(default="agent", max_length=100)  # comma-separated subset of ROLES
    active: bool = True
    password_hash: str = Field(max_length=255)
    requires_api_password: bool = False
    api_password_hash: str | None = Field(default=None, max_length=255)
    # Throttling of agent_password, as API-user logins are throttled (persistence/logins.py).
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0
    pending_since: datetime | None = None
    password_changed_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)

    @property
    def role_set(self) -> frozenset[str]:
        return role_set(self.roles)


def role_set(roles: str) -> frozenset[str]:
    """The roles column's comma-separated names."""
    return frozenset(r for r in roles.split(",") if r)


class AgentLocation(SQLModel, table=True):
    __tablename__ = "agent_location"

    id: int | None = Field(default=None, primary_key=True)
    agent_id: int = Field(foreign_key="agent.id", index=True)
    vendor_id: int = Field(foreign_key="vendor.id")
    latitude: str = Field(max_length=32)
    longitude: str = Field(max_length=32)
    ip_address: str | None = Field(default=None, max_length=45)
    login_log_id: int | None = Field(default=None, foreign_key="login_log.id")
    reported_by: int = Field(foreign_key="agent.id")  # the agent_id of the call
    recorded_at: datetime = Field(default_factory=utcnow)


class Signature(SQLModel, table=True):
    __tablename__ = "signature"

    id: int | None = Field(default=None, primary_key=True)
    idempotency_key: str | None = Field(default=None, max_length=100, unique=True)  # from external_transaction_id
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    agent_id: int = Field(foreign_key="agent.id", index=True)  # who saved it: check_signature's "on file"
    enrollment_id: str | None = Field(default=None, foreign_key="enrollment.enrollment_id", max_length=24, index=True)
    media_type: str = Field(max_length=16)
    sha256: str = Field(max_length=64)
    image: bytes
    created_at: datetime = Field(default_factory=utcnow)
