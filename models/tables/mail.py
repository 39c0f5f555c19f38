"""The mail outbox: one row per distinct send request, written before delivery starts so an SMTP outage
delays the message instead of losing it. The content is one encrypted JSON document (addresses are PII)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow
from models.statuses import MailStatus


class MailOutbox(SQLModel, table=True):
    __tablename__ = "mail_outbox"

    id: int | None = Field(default=None, primary_key=True)
    idempotency_key: str = Field(max_length=100, unique=True)  # one row, one workflow, one e-mail per key
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    agent_username: str | None = Field(default=None, max_length=100)
    message_id: str = Field(max_length=200)  # derived from the key, so a relay can spot a repeat
    content: str  # encrypted JSON: sender, recipients, subject, HTML body
    recipient_count: int
    status: str = Field(default=MailStatus.QUEUED.value, max_length=16, index=True)  # QUEUED → SENT, or REJECTED (5xx)
    last_error: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None
