"""The event log: what happened to a line (its type, as channels receive it in webhooks), who did it, and the
deliveries each event owes the vendor's webhook endpoints (an outbox the delivery workflow works from). An event
carries the line's own identifiers (enrollment ids, MDN) and facts about the change, never personal data: a
correction names the field, never its value.

A change records its events in the transaction that makes it (`record`); models.db's Session writes them when it
commits: one INSERT of the events, one read of their vendors' endpoints, one INSERT of the deliveries owed."""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from sqlalchemy import Index, Insert, Select, UniqueConstraint, insert
from sqlalchemy import select as select_rows
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col

from models.types import utcnow


class EventType(StrEnum):
    RECEIVED = "line.received"
    CUSTOMER_CREATED = "line.customer_created"
    SIM_ATTACHED = "line.sim_attached"
    ACTIVATION_ATTEMPTED = "line.activation_attempted"
    CARRIER_REFUSED = "line.carrier_refused"
    STUCK = "line.stuck"
    RETRIED = "line.retried"
    CORRECTED = "line.corrected"
    ACTIVATED = "line.activated"
    ACTIVATED_LATER = "line.activated_later"
    NUMBER_CHANGED = "line.number_changed"  # an ACTIVE line took its ported number; its first was released
    PORT_OUT_ATTEMPTED = "line.port_out_attempted"  # a port of its number refused: wrong account or PIN, or locked
    PORTED_OUT = "line.ported_out"  # the line's number went to another line by a port
    ESIM_ASSIGNED = "line.esim_assigned"
    PORT_SUBMITTED = "port.submitted"
    PORT_STATUS_CHANGED = "port.status_changed"
    PORT_RESOLUTION_REQUIRED = "port.resolution_required"
    PORT_COMPLETED = "port.completed"
    PORT_CANCELLED = "port.cancelled"
    PAYMENT_RECORDED = "payment.recorded"
    TAX_COLLECTED = "tax.collected"


# Who made a change: `<kind>:<login name>` for people and channels, or Lineup itself.
LINEUP = "lineup"


def api_user(name: str | int) -> str:
    return f"api_user:{name}"


def agent(username: str) -> str:
    return f"agent:{username}"


def support(username: str | None) -> str:
    return f"support:{username}"


def parse_types(text: str | None) -> list[str]:
    """`--events TYPE,…` as a list of known types (all of them when empty); ValueError names an unknown one."""
    known = [kind.value for kind in EventType]
    if not text or not text.strip():
        return known
    wanted = [part.strip() for part in text.split(",") if part.strip()]
    if unknown := [kind for kind in wanted if kind not in known]:
        raise ValueError(f"unknown event type {', '.join(unknown)}; known: {', '.join(known)}")
    return list(dict.fromkeys(wanted))


class LineEvent(SQLModel, table=True):
    __tablename__ = "line_event"
    # The console's overview counts a vendor's events of a type since an hour (models.support).
    __table_args__ = (Index("ix_line_event_vendor_type_created", "vendor_id", "type", "created"),)

    id: int | None = Column(default=None, primary_key=True)
    public_id: str = Column(max_length=40, unique=True)  # `evt_…`: the id channels de-duplicate by
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    enrollment_id: str = Column(max_length=24, index=True)
    type: str = Column(max_length=40)
    actor: str = Column(max_length=120)  # lineup, api_user:…, agent:…, support:…
    data: str  # JSON: the line's identifiers and the facts of the change, never personal data
    created: datetime = Column(default_factory=utcnow, index=True)


class WebhookEndpoint(SQLModel, table=True):
    __tablename__ = "webhook_endpoint"

    id: int | None = Column(default=None, primary_key=True)
    public_id: str = Column(max_length=40, unique=True)  # `whe_…`
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    url: str = Column(max_length=500)
    event_types: str = Column(max_length=1000)  # comma-separated
    secret: str  # encrypted: the HMAC key, shown once at registration
    active: bool = True
    disabled_reason: str | None = Column(default=None, max_length=300)
    failing_since: datetime | None = None  # the first failure since the last success
    created_at: datetime = Column(default_factory=utcnow)


class WebhookDelivery(SQLModel, table=True):
    __tablename__ = "webhook_delivery"
    __table_args__ = (UniqueConstraint("endpoint_id", "event_id"),)  # one delivery of an event per endpoint

    id: int | None = Column(default=None, primary_key=True)
    endpoint_id: int = Column(foreign_key="webhook_endpoint.id", index=True)
    event_id: int = Column(foreign_key="line_event.id", index=True)
    status: str = Column(default="QUEUED", max_length=16, index=True)  # QUEUED → SENDING → DELIVERED / FAILED / SKIPPED
    round: int = 0  # bumped by "send again": each round is a workflow of its own
    attempts: int = 0
    last_status: int | None = None  # the receiver's HTTP status, None when it did not answer
    last_answer: str | None = Column(default=None, max_length=300)
    first_attempt_at: datetime | None = None  # of this round
    last_attempt_at: datetime | None = None
    delivered_at: datetime | None = None
    created_at: datetime = Column(default_factory=utcnow)


Fact = str | int | bool | None


class LineIds(Protocol):
    """What an event says of its line: a Line row, or what a caller knows of it."""

    @property
    def vendor_id(self) -> int: ...
    @property
    def parent_enrollment_id(self) -> str: ...
    @property
    def mdn(self) -> str | None: ...


class Outbox(Protocol):
    """A transaction's events, written when it commits (models.db.Session)."""

    events: list[LineEvent]


def record(
    outbox: Outbox,
    enrollment_id: str,
    kind: EventType,
    *,
    line: LineIds | None,
    vendor_id: int | None = None,
    actor: str = LINEUP,
    **facts: Fact,
) -> None:
    """The event, written with the transaction's others when it commits. Its line's identifiers come from `line`;
    an enrollment without a line yet (a payment first) is named by its `vendor_id` alone, and an event of neither is
    not kept."""
    vendor = line.vendor_id if line is not None else vendor_id
    if vendor is None:  # no line and no vendor: nobody could be told of it
        return
    data: dict[str, Fact] = {
        "enrollment_id": enrollment_id,
        "parent_enrollment_id": line.parent_enrollment_id if line else None,
        "mdn": line.mdn if line else None,
        **facts,
    }
    event = LineEvent(
        public_id=f"evt_{secrets.token_hex(12)}",
        vendor_id=vendor,
        enrollment_id=enrollment_id,
        type=kind.value,
        actor=actor[:120],
        data=json.dumps(data, separators=(",", ":")),
        created=utcnow(),
    )
    outbox.events.append(event)


def written(events: Iterable[LineEvent]) -> Insert:
    """The events in one INSERT, answering each one's id by its public id."""
    rows = [event.model_dump(exclude={"id"}) for event in events]
    return insert(LineEvent).values(rows).returning(col(LineEvent.id), col(LineEvent.public_id))


def endpoints_of(vendors: Collection[int]) -> Select[int | None, int, str]:
    """The active endpoints of these vendors, with the event types each wants."""
    columns = (col(WebhookEndpoint.id), col(WebhookEndpoint.vendor_id), col(WebhookEndpoint.event_types))
    return select_rows(*columns).where(col(WebhookEndpoint.vendor_id).in_(vendors), col(WebhookEndpoint.active))


def deliveries_owed(
    events: Iterable[LineEvent], ids: Mapping[str, int], endpoints: Iterable[tuple[int, int, str]]
) -> list[dict[str, int]]:
    """One delivery row per event and active endpoint of its vendor that wants its type."""
    wanted = [(endpoint_id, vendor, types.split(",")) for endpoint_id, vendor, types in endpoints]
    return [
        {"endpoint_id": endpoint_id, "event_id": ids[event.public_id]}
        for event in events
        for endpoint_id, vendor, types in wanted
        if vendor == event.vendor_id and event.type in types
    ]


def body_of(event: LineEvent) -> bytes:
    """The webhook body: the same bytes on every attempt, so a receiver's de-duplication by `id` is safe."""
    document = {
        "id": event.public_id,
        "type": event.type,
        "created": event.created.isoformat(),
        "data": json.loads(event.data),
    }
    return json.dumps(document, separators=(",", ":")).encode()
