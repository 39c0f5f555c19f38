"""The event log (one row per thing that happened to a line) and the webhooks that carry it to channels:
each vendor's endpoints (the signing secret encrypted, since it is needed to sign) and one delivery row per
event and endpoint, written with the event (an outbox), so a delivery is never lost between the two."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from models.clock import utcnow


class LineEvent(SQLModel, table=True):
    __tablename__ = "line_event"
    # The console's overview counts a vendor's events of a type since an hour (persistence/overview.py).
    __table_args__ = (Index("ix_line_event_vendor_type_created", "vendor_id", "type", "created"),)

    id: int | None = Field(default=None, primary_key=True)
    public_id: str = Field(max_length=40, unique=True)  # `evt_…`: the id channels de-duplicate by
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    enrollment_id: str = Field(max_length=24, index=True)
    type: str = Field(max_length=40)
    actor: str = Field(max_length=120)  # lineup, api_user:…, agent:…, support:…
    data: str  # JSON: the line's identifiers and the facts of the change, never personal data
    created: datetime = Field(default_factory=utcnow, index=True)


class WebhookEndpoint(SQLModel, table=True):
    __tablename__ = "webhook_endpoint"

    id: int | None = Field(default=None, primary_key=True)
    public_id: str = Field(max_length=40, unique=True)  # `whe_…`
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    url: str = Field(max_length=500)
    event_types: str = Field(max_length=1000)  # comma-separated
    secret: str  # encrypted: the HMAC key, shown once at registration
    active: bool = True
    disabled_reason: str | None = Field(default=None, max_length=300)
    failing_since: datetime | None = None  # the first failure since the last success
    created_at: datetime = Field(default_factory=utcnow)

    def wants(self, event_type: str) -> bool:
        return event_type in self.event_types.split(",")


class WebhookDelivery(SQLModel, table=True):
    __tablename__ = "webhook_delivery"
    __table_args__ = (UniqueConstraint("endpoint_id", "event_id"),)  # one delivery of an event per endpoint

    id: int | None = Field(default=None, primary_key=True)
    endpoint_id: int = Field(foreign_key="webhook_endpoint.id", index=True)
    event_id: int = Field(foreign_key="line_event.id", index=True)
    status: str = Field(default="QUEUED", max_length=16, index=True)  # QUEUED → SENDING → DELIVERED / FAILED / SKIPPED
    round: int = 0  # bumped by "send again": each round is a workflow of its own
    attempts: int = 0
    last_status: int | None = None  # the receiver's HTTP status, None when it did not answer
    last_answer: str | None = Field(default=None, max_length=300)
    first_attempt_at: datetime | None = None  # of this round
    last_attempt_at: datetime | None = None
    delivered_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
