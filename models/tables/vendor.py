"""Vendors (the carrier's sales companies) and the API users that authenticate for them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from models.clock import utcnow


class Vendor(SQLModel, table=True):
    __tablename__ = "vendor"

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(max_length=32, unique=True)  # the `vendor_id` channels send, e.g. DEMO
    name: str = Field(max_length=200)
    active: bool = True
    created_at: datetime = Field(default_factory=utcnow)


class ApiUser(SQLModel, table=True):
    """Credentials for `POST /authenticate`: username, password and PIN, hashed with argon2."""

    __tablename__ = "api_user"
    __table_args__ = (UniqueConstraint("vendor_id", "username"),)

    id: int | None = Field(default=None, primary_key=True)
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    username: str = Field(max_length=100)
    password_hash: str = Field(max_length=255)
    pin_hash: str = Field(max_length=255)
    active: bool = True
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0  # logins claimed and still being verified, since pending_since (persistence/logins.py)
    pending_since: datetime | None = None
    # Wrong login-log OTPs this user sent in the window that began at otp_window_start (persistence/logins.py).
    otp_failures: int = 0
    otp_window_start: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
