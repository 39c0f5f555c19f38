"""The mail domain's data: the outbox, one row per distinct send request, written before delivery starts so an
SMTP outage delays the message instead of losing it (its content one encrypted JSON document: addresses are PII);
the delivery workflow's messages, which carry the row's id and none of its content; `/mail`'s send and `/ops`'
list of the mail support should look at."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import Field, ValidationInfo, field_validator
from sqlalchemy import and_, or_
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col, select

from models.db import Session
from models.envelope import Shape
from models.types import ActionRequest, Email, Emails, HeaderName, HeaderNames, HtmlBody, Subject, fail, utcnow


class MailStatus(StrEnum):
    QUEUED = "QUEUED"
    SENT = "SENT"
    REJECTED = "REJECTED"  # the relay refused it for good (5xx)


class MailOutbox(SQLModel, table=True):
    __tablename__ = "mail_outbox"

    id: int | None = Column(default=None, primary_key=True)
    idempotency_key: str = Column(max_length=100, unique=True)  # one row, one workflow, one e-mail per key
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    agent_username: str | None = Column(default=None, max_length=100)
    message_id: str = Column(max_length=200)  # derived from the key, so a relay can spot a repeat
    content: str  # encrypted JSON: sender, recipients, subject, HTML body
    recipient_count: int
    status: str = Column(default=MailStatus.QUEUED.value, max_length=16, index=True)  # QUEUED → SENT or REJECTED
    last_error: str | None = Column(default=None, max_length=500)
    created_at: datetime = Column(default_factory=utcnow)
    sent_at: datetime | None = None


@dataclass(frozen=True)
class MailDelivery:
    """Input of MailDeliveryWorkflow: the outbox row holds the content, so none of it enters history."""

    outbox_id: int
    idempotency_key: str


@dataclass(frozen=True)
class MailSent:
    message_id: str


class Send(ActionRequest):
    """An HTML e-mail to 1 to 50 recipients; names and subject are single lines (no header injection)."""

    sender_name: HeaderName
    sender_email: Email
    subject: Subject
    body: HtmlBody
    receiver_name: HeaderNames
    receiver_email: Emails

    @field_validator("receiver_email")
    @classmethod
    def _one_address_per_name(cls, emails: list[str], info: ValidationInfo[object]) -> list[str]:
        names = info.data.get("receiver_name")
        if names is not None and len(names) != len(emails):
            raise fail(f"must hold as many entries as Receiver name ({len(names)})")
        return emails

    def __repr__(self) -> str:  # addresses and content stay out of logs
        return f"Send(recipients={len(self.receiver_email)})"


class ListUndeliveredMail(ActionRequest):
    """The vendor's mail that did not go out (REJECTED, or QUEUED past the sweep's grace), oldest first."""

    limit: int = Field(default=100, ge=1, le=500)


class UndeliveredMail(Shape):
    """A message that did not go out: REJECTED for good (refused, unbuildable, or past the age limit), or
    QUEUED for longer than the sweep's grace. No address or content: those are PII and stay encrypted."""

    message_id: str
    status: str
    recipient_count: int
    agent_username: str | None
    last_error: str
    queued_at: str


UNDELIVERED = [
    UndeliveredMail(
        message_id="<DEMO-t-NOTICE42@lineup.local>", status="REJECTED", recipient_count=1, agent_username="demo.agent",
        last_error="undelivered after 48 h: The mail relay is unavailable: 421 Service not available",
        queued_at="2026-11-22T10:15:02+00:00",
    )
]  # fmt: skip


async def undelivered(session: Session, *, vendor_id: int, queued_before: datetime, limit: int) -> Sequence[MailOutbox]:
    """The vendor's REJECTED messages and those QUEUED since before `queued_before`, oldest first."""
    query = (
        select(MailOutbox)
        .where(
            MailOutbox.vendor_id == vendor_id,
            or_(
                col(MailOutbox.status) == MailStatus.REJECTED,
                and_(col(MailOutbox.status) == MailStatus.QUEUED, col(MailOutbox.created_at) < queued_before),
            ),
        )
        .order_by(col(MailOutbox.created_at), col(MailOutbox.id))
        .limit(limit)
    )
    return (await session.exec(query)).all()
