"""Single-use API tokens (hash only) and the login log each authentication opens."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_token"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True)  # sha256 hex of the token; the token is never stored
    vendor_id: int = Field(foreign_key="vendor.id")
    api_user_id: int = Field(foreign_key="api_user.id", index=True)
    login_log_id: int | None = Field(default=None, foreign_key="login_log.id", index=True)  # logout ends them
    issued_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime = Field(index=True)
    used_at: datetime | None = None


class LoginLog(SQLModel, table=True):
    __tablename__ = "login_log"

    id: int | None = Field(default=None, primary_key=True)
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    api_user_id: int = Field(foreign_key="api_user.id")
    otp: str = Field(max_length=6, index=True)
    ip_address: str | None = Field(default=None, max_length=45)
    opened_at: datetime = Field(default_factory=utcnow)
    closed_at: datetime | None = None
    latitude: str | None = Field(default=None, max_length=32)
    longitude: str | None = Field(default=None, max_length=32)
