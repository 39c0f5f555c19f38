"""Agent password changes and the proof images (worksite, table, form) each one was made with."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow

PROOF_KINDS = ("worksite_proof", "table_proof", "agent_change_password")


class PasswordChange(SQLModel, table=True):
    __tablename__ = "password_change"

    id: int | None = Field(default=None, primary_key=True)
    idempotency_key: str | None = Field(default=None, max_length=100, unique=True)  # from external_transaction_id
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    agent_id: int = Field(foreign_key="agent.id", index=True)
    api_user_id: int = Field(foreign_key="api_user.id")  # the token's user
    latitude: str = Field(max_length=32)
    longitude: str = Field(max_length=32)
    mail_outbox_id: int | None = Field(default=None, foreign_key="mail_outbox.id")  # the e-mail with the password
    changed_at: datetime = Field(default_factory=utcnow)


class ProofImage(SQLModel, table=True):
    __tablename__ = "proof_image"

    id: int | None = Field(default=None, primary_key=True)
    password_change_id: int = Field(foreign_key="password_change.id", index=True)
    kind: str = Field(max_length=32)  # one of PROOF_KINDS
    media_type: str = Field(max_length=16)
    sha256: str = Field(max_length=64)
    image: bytes
