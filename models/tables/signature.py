"""Signature images (PNG or JPEG, at most 2 MiB) saved by agents, optionally for an enrollment."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow


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
