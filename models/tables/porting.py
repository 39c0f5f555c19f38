"""Tables of the porting domain: a PORTIN line's port-in order, its old-account data encrypted (`secrets`), and
the carrier's port-status pushes taken."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, text
from sqlmodel import Field, SQLModel

from models.clock import utcnow
from models.statuses import PortStatus

# One port in progress per number (issue 27): the backstop behind intake's refusal of a second.
IN_PROGRESS = text("status IN ('RECEIVED', 'SUBMITTED', 'CONFIRMED', 'RESOLUTION_REQUIRED')")


class PortIn(SQLModel, table=True):
    """The port-in order of a PORTIN line. `secrets` holds the old account's data, encrypted."""

    __tablename__ = "port_in"
    __table_args__ = (
        Index(
            "uq_port_in_progress",
            "port_number",
            unique=True,
            sqlite_where=IN_PROGRESS,
            postgresql_where=IN_PROGRESS,
        ),
    )

    enrollment_id: str = Field(primary_key=True, foreign_key="line.enrollment_id", max_length=24)
    port_number: str = Field(max_length=10, index=True)
    current_carrier: str = Field(max_length=32)
    secrets: str
    carrier_port_id: str | None = Field(default=None, max_length=32)
    status: str = Field(default=PortStatus.RECEIVED.value, max_length=24)
    resolution_code: str | None = Field(default=None, max_length=8)
    resolution_description: str | None = Field(default=None, max_length=200)
    carrier_response: str | None = Field(default=None, max_length=200)
    requested_at: datetime | None = None
    responded_at: datetime | None = None


class PortPush(SQLModel, table=True):
    """A carrier's port-status push, taken once (issue 27, finding 9): the digest of its signed timestamp and body
    is unique, so a replay is known; rows older than the signature's tolerance and the poll window are purged as
    new pushes arrive. `signalled`: it made the port's workflow poll (at most LINEUP_PORT_PUSH_POLLS_PER_HOUR)."""

    __tablename__ = "port_push"

    id: int | None = Field(default=None, primary_key=True)
    digest: str = Field(max_length=64, unique=True)  # sha256 of "t.body", as signed
    enrollment_id: str = Field(max_length=24, index=True)
    signalled: bool = False
    received_at: datetime = Field(default_factory=utcnow, index=True)
