"""Tables of the auth domain: vendors (the carrier's sales companies) and the API users that authenticate for
them, single-use tokens (hash only) and the login log each authentication opens, customer logins
(saved_card_list) throttled per line, and agent password changes with their proof images."""

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
    # A line activates only with a settled payment covering its plan (`lineup vendor set --require-payment`).
    require_payment: bool = False


class ApiUser(SQLModel, table=True):
    """Credentials for `POST /authenticate`: username, password and PIN, hashed with argon2."""

    __tablename__ = "api_user"
    __table_args__ = (UniqueConstraint("vendor_id", "username"),)

    id: int | None = Field(default=None, primary_key=True)
    vendor_id: int = Field(foreign_key="vendor.id", index=True)
    username: str = Field(max_length=100)
    password_hash: str = Field(max_length=255)
    pin_hash: str = Field(max_length=255)
    # argon2 of password and PIN together: one verification a login (services/auth/authenticate.py). None until
    # a login with both right sets it (rows from before it, and after a password change, which knows no PIN).
    login_hash: str | None = Field(default=None, max_length=255)
    active: bool = True
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0  # logins claimed and still being verified, since pending_since (persistence/logins.py)
    pending_since: datetime | None = None
    # Wrong login-log OTPs this user sent in the window that began at otp_window_start (persistence/logins.py).
    otp_failures: int = 0
    otp_window_start: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


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
    otp: str = Field(max_length=64, index=True)  # the OTP's keyed digest (persistence.auth.logins.otp_digest)
    ip_address: str | None = Field(default=None, max_length=45)
    opened_at: datetime = Field(default_factory=utcnow)
    closed_at: datetime | None = None
    latitude: str | None = Field(default=None, max_length=32)
    longitude: str | None = Field(default=None, max_length=32)


class CustomerLogin(SQLModel, table=True):
    __tablename__ = "customer_login"

    enrollment_id: str = Field(primary_key=True, foreign_key="line.enrollment_id", max_length=24)
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0
    pending_since: datetime | None = None


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
    """One proof of one password change; its bytes are the ProofBlob of its digest, kept once however often sent."""

    __tablename__ = "proof_image"

    id: int | None = Field(default=None, primary_key=True)
    password_change_id: int = Field(foreign_key="password_change.id", index=True)
    kind: str = Field(max_length=32)  # one of PROOF_KINDS
    media_type: str = Field(max_length=16)
    sha256: str = Field(max_length=64, foreign_key="proof_blob.sha256", index=True)


class ProofBlob(SQLModel, table=True):
    """A proof image's bytes, by their SHA-256: an image sent again (by any agent) is stored once. Purged with
    the last proof naming it, LINEUP_PROOF_RETENTION_DAYS after its change."""

    __tablename__ = "proof_blob"

    sha256: str = Field(primary_key=True, max_length=64)
    media_type: str = Field(max_length=16)
    image: bytes
    created_at: datetime = Field(default_factory=utcnow)
