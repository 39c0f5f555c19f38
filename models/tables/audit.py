"""One row per operation call: who, what, outcome, when. Never the body."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow


class AuditEntry(SQLModel, table=True):
    __tablename__ = "audit_log"

    id: int | None = Field(default=None, primary_key=True)
    request_id: str = Field(max_length=32, index=True)
    at: datetime = Field(default_factory=utcnow, index=True)
    path: str = Field(max_length=100)
    action: str | None = Field(default=None, max_length=64)
    vendor_id: int | None = Field(default=None, foreign_key="vendor.id")
    api_user_id: int | None = Field(default=None, foreign_key="api_user.id")
    agent_username: str | None = Field(default=None, max_length=100)
    msg_code: str = Field(max_length=16)
    http_status: int
    duration_ms: int
