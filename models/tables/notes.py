"""Account notes agents (or API users) write against a customer; the text is encrypted (it may hold PII)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow


class Note(SQLModel, table=True):
    __tablename__ = "note"

    id: int | None = Field(default=None, primary_key=True)
    idempotency_key: str | None = Field(default=None, max_length=100, unique=True)  # from external_transaction_id
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    enrollment_id: str = Field(foreign_key="line.enrollment_id", max_length=24, index=True)
    customer_id: str = Field(max_length=16, index=True)
    text: str  # encrypted
    latitude: str = Field(max_length=32)
    longitude: str = Field(max_length=32)
    is_activity: bool = False
    activity_type: str | None = Field(default=None, max_length=100)
    agent_id: int | None = Field(default=None, foreign_key="agent.id")  # the author, when an agent was named
    api_user_id: int = Field(foreign_key="api_user.id")  # the token's user: the author otherwise
    created_at: datetime = Field(default_factory=utcnow)
