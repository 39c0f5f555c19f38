"""The auth domain's data, who may call: vendors and the API users that authenticate for them, agents as principals
(roles, API passwords), single-use tokens (hash only) and the login log each /authenticate opens, the throttle of
every kind of login, the audit row each call leaves (never its body); then their queries, in that order."""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Literal, NamedTuple, cast

import sqlalchemy
from pydantic import ConfigDict, Field
from sqlalchemy import ColumnElement, UniqueConstraint, bindparam, case, delete, insert, literal, or_, update
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col, select
from sqlmodel.sql.sqltypes import UTCDateTime

from models.crypto import FieldCipher
from models.db import Session, UnitOfWork, insert_or_skip, table
from models.envelope import TokenRefused, refuse
from models.settings import AuthSettings, Settings
from models.types import ActionRequest, Raw32, Raw100, Raw128, WellFormedText, utcnow

# `payments` records payments taken outside Lineup (make_payment CASH or OTHER_PAYMENT_OPTION): a vendor grants it
# to its storefronts' and cash desks' agents; `support` uses /ops and the console. No role implies another.
ROLES = ("agent", "payments", "support", "admin")
# Their agents give their API password (agent_password) on every API call: `lineup agent create` and `set-roles`
# giving one ask for it (decisions.md, "Who calls"). `payments` is not one: the original's storefronts send none.
PRIVILEGED = frozenset({"support", "admin"})
LOCKED = "Too many failed logins; try again later"  # what every throttled login answers while refused
INVALID_OTP = "Please provide valid otp"
TOO_MANY_OTPS = "Too many wrong OTPs; try again later"
# Seconds between a waiting attempt's claims: doubling, to leave the CPU to verifications; jittered, out of step.
WAIT_FIRST, WAIT_LONGEST = 0.02, 0.5


class Vendor(SQLModel, table=True):
    __tablename__ = "vendor"

    id: int | None = Column(default=None, primary_key=True)
    code: str = Column(max_length=32, unique=True)  # the `vendor_id` channels send, e.g. DEMO
    name: str = Column(max_length=200)
    active: bool = True
    created_at: datetime = Column(default_factory=utcnow)
    # A line activates only with a settled payment covering its plan (`lineup vendor set --require-payment`).
    require_payment: bool = False


class LoginThrottle(SQLModel):
    """The throttle columns of a login's row, counted by `claim_login` and `settle_login`: failures since the last
    success and the lock they set, and the attempts claimed and still being verified, since pending_since. Each
    login has its own: API users, agents' API passwords, customers, the console's sign-in."""

    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0
    pending_since: datetime | None = None


class ApiUser(LoginThrottle, table=True):
    """Credentials for `POST /authenticate`: username, password and PIN, hashed with argon2."""

    __tablename__ = "api_user"
    __table_args__ = (UniqueConstraint("vendor_id", "username"),)

    id: int | None = Column(default=None, primary_key=True)
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    username: str = Column(max_length=100)
    password_hash: str = Column(max_length=255)
    pin_hash: str = Column(max_length=255)
    # argon2 of password and PIN together: one verification a login (api.auth). None until a login with both
    # right sets it (rows from before it, and after a password change, which knows no PIN).
    login_hash: str | None = Column(default=None, max_length=255)
    # The agent whose own API credentials these are (`agent create --pin`): its tokens act as that agent only. None:
    # the vendor's API user, acting for any of the vendor's agents (decisions.md, "Who calls").
    agent_id: int | None = Column(default=None, foreign_key="agent.id", unique=True, index=True)
    active: bool = True
    # Wrong login-log OTPs this user sent in the window that began at otp_window_start (`login_entry`).
    otp_failures: int = 0
    otp_window_start: datetime | None = None
    created_at: datetime = Column(default_factory=utcnow)


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_token"

    id: int | None = Column(default=None, primary_key=True)
    token_hash: str = Column(max_length=64, unique=True)  # sha256 hex of the token; the token is never stored
    vendor_id: int = Column(foreign_key="vendor.id")
    api_user_id: int = Column(foreign_key="api_user.id", index=True)
    login_log_id: int | None = Column(default=None, foreign_key="login_log.id", index=True)  # logout ends them
    issued_at: datetime = Column(default_factory=utcnow)
    expires_at: datetime = Column(index=True)
    used_at: datetime | None = None


class LoginLog(SQLModel, table=True):
    __tablename__ = "login_log"

    id: int | None = Column(default=None, primary_key=True)
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    api_user_id: int = Column(foreign_key="api_user.id")
    otp: str = Column(max_length=64, index=True)  # the OTP's keyed digest (`otp_digest`)
    ip_address: str | None = Column(default=None, max_length=45)
    opened_at: datetime = Column(default_factory=utcnow)
    closed_at: datetime | None = None
    latitude: str | None = Column(default=None, max_length=32)
    longitude: str | None = Column(default=None, max_length=32)


class Agent(LoginThrottle, table=True):  # the throttle of its API password (agent_password)
    __tablename__ = "agent"
    # A username is its vendor's own: every storefront of the original names its agent `ewebsiteapi`, and an
    # agent_id is resolved within the caller's vendor (decisions.md, "Agents per vendor").
    __table_args__ = (UniqueConstraint("vendor_id", "username", name="uq_agent_vendor_username"),)

    id: int | None = Column(default=None, primary_key=True)
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    username: str = Column(max_length=100)
    email: str | None = Column(default=None, max_length=254)
    roles: str = Column(default="agent", max_length=100)  # comma-separated subset of ROLES
    active: bool = True
    password_hash: str = Column(max_length=255)
    requires_api_password: bool = False
    api_password_hash: str | None = Column(default=None, max_length=255)
    password_changed_at: datetime | None = None
    created_at: datetime = Column(default_factory=utcnow)

    @property
    def role_set(self) -> frozenset[str]:
        return role_set(self.roles)


class CustomerLogin(LoginThrottle, table=True):
    __tablename__ = "customer_login"

    enrollment_id: str = Column(primary_key=True, foreign_key="line.enrollment_id", max_length=24)


class ConsoleLogin(LoginThrottle, table=True):
    """The console sign-in's throttle of one support agent, apart from its API password's (Agent.failed_logins):
    failed sign-ins lock the console only, never the agent's API calls."""

    __tablename__ = "console_login"

    agent_id: int = Column(primary_key=True, foreign_key="agent.id")


class AuditEntry(SQLModel, table=True):
    __tablename__ = "audit_log"

    id: int | None = Column(default=None, primary_key=True)
    request_id: str = Column(max_length=32, index=True)
    at: datetime = Column(default_factory=utcnow, index=True)
    path: str = Column(max_length=100)
    action: str | None = Column(default=None, max_length=64)
    vendor_id: int | None = Column(default=None, foreign_key="vendor.id")
    api_user_id: int | None = Column(default=None, foreign_key="api_user.id")
    agent_username: str | None = Column(default=None, max_length=100)
    msg_code: str = Column(max_length=16)
    http_status: int
    duration_ms: int


Throttled = type[Agent] | type[ApiUser] | type[CustomerLogin] | type[ConsoleLogin]  # the tables of LoginThrottle
Row = ColumnElement[bool]  # one throttled row's condition


@dataclass(frozen=True)
class AgentRef:
    """An agent as the access checks and handlers see it: plain values read once per request."""

    id: int
    username: str
    vendor_id: int
    active: bool
    roles: frozenset[str]
    email: str | None = None
    requires_api_password: bool = False
    api_password_hash: str | None = None

    @classmethod
    def of_entity(cls, agent: Agent) -> AgentRef:
        """From an Agent read from the database (so it has its id), or a row of its columns."""
        assert agent.id is not None
        return cls(
            id=agent.id,
            username=agent.username,
            vendor_id=agent.vendor_id,
            active=agent.active,
            roles=role_set(agent.roles),
            email=agent.email,
            requires_api_password=agent.requires_api_password,
            api_password_hash=agent.api_password_hash,
        )


@dataclass(frozen=True)
class TokenOwner:
    vendor_id: int
    api_user_id: int
    login_log_id: int | None


@dataclass(frozen=True)
class Presented:
    """The token a request presents, found unused and unexpired, with its vendor and the agent it names among that
    vendor's agents (decisions.md, "Agents per vendor": another vendor's agent of that name is none); or, when
    `bound`, the agent whose own API credentials issued it, whatever name the body gives (decisions.md, "Who
    calls": the dispatcher refuses another)."""

    hashed: str
    owner: TokenOwner
    vendor_code: str
    agent: AgentRef | None
    require_payment: bool = False  # the vendor's, read with the token: creates and activations check it
    bound: bool = False


@dataclass(frozen=True)
class Throttle:
    """`max_failures` failures without a success lock a login for `lockout_seconds`; at most that many of its attempts
    may be pending (claimed, secret being verified) or failed at once: a claim beyond waits up to `wait_seconds` for a
    slot. A claim pending for `stale_seconds` is taken for one whose process died before settling it."""

    max_failures: int
    lockout_seconds: int
    # About as long as a burst's verifications take the CPUs (50 channels, two busy cores: ~12 s); past it: locked.
    wait_seconds: float = 30.0
    stale_seconds: int = 60  # far beyond one verification (two argon2 checks, ~0.1 s)

    @classmethod
    def of(cls, settings: Settings) -> Throttle:
        auth = settings.auth
        return cls(auth.max_failures, auth.lockout_seconds, auth.wait_seconds, auth.stale_seconds)


# A claim is granted (verify the secret, then settle the attempt), full (every slot is pending or failed: try again
# shortly) or locked (refused unread until the lockout ends, or the row does not exist).
Claim = Literal["granted", "full", "locked"]


@dataclass(frozen=True)
class AuditFacts:
    request_id: str
    path: str
    action: str | None
    vendor_id: int | None
    api_user_id: int | None
    agent_username: str | None
    msg_code: str
    http_status: int
    duration_ms: int


class Logout(ActionRequest):
    """Ends the session the token belongs to (extension): its login-log OTP closes and its tokens, the one of
    this answer included, stop working. Needs nothing but the token."""


class AuthenticateRequest(WellFormedText):
    """All four are required; a missing one is answered like a wrong one (`Invalid credentials!!`)."""

    model_config = ConfigDict(extra="ignore")

    vendor_id: Raw32 | None = Field(default=None, examples=["DEMO"])
    username: Raw100 | None = Field(default=None, examples=["demo.api"])
    password: Raw128 | None = Field(default=None, examples=["demo-pass-1"])
    pin: Raw32 | None = Field(default=None, examples=["1234"])

    def missing(self) -> list[str]:
        names = {"vendor_id": "Vendor Id", "username": "Username", "password": "Password", "pin": "Pin"}
        return [f"Please enter {label}" for field, label in names.items() if not (getattr(self, field) or "").strip()]


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


async def issue(transaction: Session, owner: TokenOwner, ttl_seconds: int) -> str:
    """A new token for the owner, stored in the transaction."""
    token = new_token()
    await store(transaction, token, owner, ttl_seconds)
    return token


async def store(transaction: Session, token: str, owner: TokenOwner, ttl_seconds: int) -> None:
    """Stores `token` (its hash) as the owner's next single-use token."""
    # A Core INSERT: the row is never read back in this session, so the ORM's unit of work is pure cost.
    await transaction.run(_ISSUE, _token_row(token, owner, ttl_seconds))


def _token_row(token: str, owner: TokenOwner, ttl_seconds: int) -> dict[str, object]:
    now = utcnow()
    return {
        "token_hash": digest(token),
        "vendor_id": owner.vendor_id,
        "api_user_id": owner.api_user_id,
        "login_log_id": owner.login_log_id,
        "issued_at": now,
        "expires_at": now + timedelta(seconds=ttl_seconds),
    }


async def present(transaction: Session, token: str | None, *, username: str | None, claim: bool = False) -> Presented:
    """The presented token, still unused and unexpired, with its vendor and the acting agent (the named one, or the
    token's own when its API user is an agent's); else the refusal. `claim`: marked used as well, in the same
    transaction — on PostgreSQL in the same statement (a data-modifying CTE: one round trip for the read and the
    claim), on SQLite by the conditional UPDATE right after the read (statements there cost no round trip)."""
    if not token:
        raise _token_refused("missing")
    hashed, now = digest(token), utcnow()
    claiming = claim and transaction.dialect == "postgresql"
    found = await transaction.rows(
        _PRESENT_CLAIMING if claiming else _PRESENT, {"hashed": hashed, "username": username, "now": now}
    )
    if not found:
        raise _token_refused("unknown")
    row = _PresentedRow._make(found[0][: len(_PresentedRow._fields)])
    if row.token_used_at is not None:
        raise _token_refused("used")
    if row.token_expires_at <= now:
        raise _token_refused("expired")
    if claiming and not found[0][-1]:  # unused when the statement began: a request presenting it claimed it first
        raise _token_refused("used")
    if claim and not claiming:
        await _claim(transaction, hashed, now)
    owner = TokenOwner(row.token_vendor_id, row.token_api_user_id, row.token_login_log_id)
    # The outer join found the agent or nothing: with its id, every column of it is there.
    agent = AgentRef.of_entity(cast(Agent, row)) if row.id is not None else None
    return Presented(hashed, owner, row.vendor_code, agent, row.vendor_require_payment, row.bound_agent_id is not None)


async def claim(transaction: Session, hashed: str) -> None:
    """Marks the presented token used. The conditional UPDATE is the whole race: one request matches the row."""
    await _claim(transaction, hashed, utcnow())


async def _claim(transaction: Session, hashed: str, now: datetime) -> None:
    if await transaction.run(_CLAIM, {"hashed": hashed, "now": now}) != 1:
        # Lost to a request presenting the same token, or it expired, or its session ended, since `present`.
        rows = await transaction.rows(_USED_AT, {"hashed": hashed})
        raise _token_refused("unknown" if not rows else "expired" if rows[0][0] is None else "used")


async def revoke(session: Session, api_user_id: int, *, keep: str | None = None) -> None:
    """Ends every outstanding token of the API user (they then answer `Token expire`), except `keep`."""
    now = utcnow()
    query = update(ApiToken).where(
        col(ApiToken.api_user_id) == api_user_id, col(ApiToken.used_at).is_(None), col(ApiToken.expires_at) > now
    )
    if keep is not None:
        query = query.where(col(ApiToken.token_hash) != digest(keep))
    await session.execute(query.values(expires_at=now))


async def drop_all(session: Session, api_user_id: int) -> None:
    """Deletes every token of the API user (it was disabled): they then answer as an unknown token does."""
    await session.execute(delete(ApiToken).where(col(ApiToken.api_user_id) == api_user_id))


async def active_api_user(session: Session, *, vendor_code: str, username: str) -> ApiUser | None:
    """The active API user of an active vendor, or None."""
    query = (
        select(ApiUser)
        .join(Vendor, col(Vendor.id) == col(ApiUser.vendor_id))
        .where(Vendor.code == vendor_code.strip().upper(), ApiUser.username == username.strip())
        .where(col(Vendor.active), col(ApiUser.active))
    )
    return (await session.exec(query)).first()


async def claim_login(
    uow: UnitOfWork, table: Throttled, row: Row, throttle: Throttle, *, first: Mapping[str, object] | None = None
) -> bool:
    """True when the attempt may verify its secret (then `settle_login` it); False while the row is locked, or when
    no slot came free within `wait_seconds`: attempts in flight slow a burst of right secrets down, never lock it
    out. Each claim is a transaction of its own, none held while waiting. `first`: the row, made by the first."""
    if first is not None:
        async with uow.transaction() as session:
            await insert_or_skip(session, table, first)
    deadline, pause = time.monotonic() + throttle.wait_seconds, WAIT_FIRST
    while True:
        async with uow.transaction() as session:
            claimed = await _claim_attempt(session, table, row, throttle)
        if claimed != "full" or time.monotonic() >= deadline:
            return claimed == "granted"
        await asyncio.sleep(random.uniform(pause / 2, pause))
        pause = min(pause * 2, WAIT_LONGEST)


async def settle_login(uow: UnitOfWork, table: Throttled, row: Row, throttle: Throttle, *, ok: bool) -> None:
    async with uow.transaction() as session:
        await settle_attempt(session, table, row, throttle, ok=ok)


async def settle_attempt(session: Session, table: Throttled, row: Row, throttle: Throttle, *, ok: bool) -> bool:
    """Ends a claimed attempt: a right secret clears the failures and any lock, a wrong one is counted and the
    failure that reaches `max_failures` locks the row. False when no row matched."""
    values = _one_pending_less(table)
    if ok:
        values |= {"failed_logins": 0, "locked_until": None}
    else:
        failed = col(table.failed_logins) + 1
        until = literal(utcnow() + timedelta(seconds=throttle.lockout_seconds), UTCDateTime())
        locks = case((failed >= throttle.max_failures, until), else_=col(table.locked_until))
        values |= {"failed_logins": failed, "locked_until": locks}
    settled = await session.execute(update(table).where(row).values(values).returning(col(table.pending_logins)))
    return settled.first() is not None


async def release_login(uow: UnitOfWork, table: Throttled, row: Row) -> None:
    """Gives back a claimed attempt never verified (the verification queue was full): neither failure nor success."""
    async with uow.transaction() as session:
        await session.execute(update(table).where(row).values(_one_pending_less(table)))


def otp_digest(cipher: FieldCipher, otp: str) -> str:
    """What a login-log entry keeps of its OTP: the keyed digest (six digits unkeyed would be read back at once)."""
    return cipher.digest("login-otp", otp)


async def login_entry(uow: UnitOfWork, policy: AuthSettings, *, vendor_id: int, api_user_id: int, otp_hash: str) -> int:
    """The id of the vendor's latest open login-log entry with this OTP (its `otp_digest`), LINEUP_LOGIN_OTP_TTL_HOURS
    old at most. LINEUP_LOGIN_OTP_MAX_FAILURES wrong OTPs of one API user in LINEUP_LOGIN_OTP_WINDOW_SECONDS refuse the
    rest, right ones too: each guess is counted first (none outruns the limit) and given back when right."""
    user = col(ApiUser.id) == api_user_id
    opened_after = utcnow() - timedelta(hours=policy.otp_ttl_hours)
    open_entry = (
        select(LoginLog.id)
        .where(LoginLog.vendor_id == vendor_id, LoginLog.otp == otp_hash, col(LoginLog.closed_at).is_(None))
        .where(col(LoginLog.opened_at) > opened_after)
        .order_by(col(LoginLog.opened_at).desc())
    )
    async with uow.transaction() as session:  # committed whatever the guess comes to
        counted = await _count_otp_guess(session, user, policy)
        entry_id = (await session.exec(open_entry)).first() if counted else None
        if entry_id is not None:
            await session.execute(update(ApiUser).where(user).values(otp_failures=col(ApiUser.otp_failures) - 1))
    if not counted:
        raise refuse(TOO_MANY_OTPS, rest_status=429)
    if entry_id is None:
        raise refuse(INVALID_OTP)
    return entry_id


async def close_login_entries(session: Session, *, api_user_id: int, keep: int | None = None) -> None:
    """Closes the API user's open login-log entries (their OTPs stop working), except the entry `keep`."""
    query = update(LoginLog).where(col(LoginLog.api_user_id) == api_user_id, col(LoginLog.closed_at).is_(None))
    if keep is not None:
        query = query.where(col(LoginLog.id) != keep)
    await session.execute(query.values(closed_at=utcnow()))


async def end_login(session: Session, login_log_id: int) -> None:
    """Logout: the login-log entry closes (its OTP stops working) and the tokens chained from it are deleted."""
    entry = update(LoginLog).where(col(LoginLog.id) == login_log_id, col(LoginLog.closed_at).is_(None))
    await session.execute(entry.values(closed_at=utcnow()))
    await session.execute(delete(ApiToken).where(col(ApiToken.login_log_id) == login_log_id))


async def write_audit(transaction: Session, facts: AuditFacts) -> None:
    """The row, in the transaction that commits the call's work (or its own, for a call refused early)."""
    await transaction.run(_AUDIT, _audit_row(facts))


async def close_call(
    transaction: Session, facts: AuditFacts, *, token: str | None, owner: TokenOwner, ttl_seconds: int
) -> None:
    """The call's last writes: its answer's token (None: the answer carries none) and its audit row; on PostgreSQL
    in one statement (the token's INSERT as a CTE of the audit row's: one round trip for both)."""
    if token is None:
        await write_audit(transaction, facts)
        return
    values = _token_row(token, owner, ttl_seconds)
    if transaction.dialect != "postgresql":
        await transaction.run(_ISSUE, values)
        await write_audit(transaction, facts)
        return
    issued = {f"token_{name}": value for name, value in values.items()}
    await transaction.run(_ISSUE_AND_AUDIT, issued | _audit_row(facts))


def _audit_row(facts: AuditFacts) -> dict[str, object]:
    return {
        "request_id": facts.request_id,
        "path": facts.path[:100],
        "action": (facts.action or "")[:64] or None,
        "vendor_id": facts.vendor_id,
        "api_user_id": facts.api_user_id,
        "agent_username": facts.agent_username,
        "msg_code": facts.msg_code,
        "http_status": facts.http_status,
        "duration_ms": facts.duration_ms,
        "at": utcnow(),
    }


async def record_audit(uow: UnitOfWork, facts: AuditFacts) -> None:
    """Written in a transaction of its own (a call answered before the dispatcher could write it)."""
    uow.before_commit(lambda transaction: write_audit(transaction, facts))
    await uow.commit()


def role_set(roles: str) -> frozenset[str]:
    """The roles column's comma-separated names."""
    return frozenset(r for r in roles.split(",") if r)


def _token_refused(reason: str) -> TokenRefused:
    """The token check's refusal: `reason` (missing, unknown, used, expired) for metrics, and its message."""
    return TokenRefused(reason, {"used": "Token already used", "expired": "Token expire"}.get(reason, "Invalid Token"))


async def _claim_attempt(session: Session, table: Throttled, row: Row, throttle: Throttle) -> Claim:
    """Claims one verification on the row BEFORE its secret is verified: granted while the row is not locked and
    failures plus pending attempts stay below `max_failures`. One conditional UPDATE is the whole race, on SQLite
    and PostgreSQL alike. An ended lock restarts the failures at 0; stale pending attempts count as 0."""
    now = utcnow()
    locked_until = col(table.locked_until)
    failed = case((locked_until.is_(None), col(table.failed_logins)), else_=0)  # only an ended lock passes WHERE
    stale = col(table.pending_since) <= now - timedelta(seconds=throttle.stale_seconds)
    pending = case((stale, 0), else_=col(table.pending_logins))
    claimed = await session.execute(
        update(table)
        .where(row, or_(locked_until.is_(None), locked_until <= now), failed + pending < throttle.max_failures)
        .values(failed_logins=failed, locked_until=None, pending_logins=pending + 1, pending_since=now)
        .returning(col(table.pending_logins))
    )
    if claimed.first() is not None:
        return "granted"
    state = (await session.execute(select(locked_until).where(row))).first()
    return "full" if state is not None and (state[0] is None or state[0] <= now) else "locked"


def _one_pending_less(table: Throttled) -> dict[str, object]:
    """The values that end one pending attempt, settled or given back."""
    pending = col(table.pending_logins)
    return {
        "pending_logins": case((pending > 1, pending - 1), else_=0),
        "pending_since": case((pending > 1, col(table.pending_since)), else_=None),
    }


async def _count_otp_guess(session: Session, user: Row, policy: AuthSettings) -> bool:
    """Counts one OTP guess against the user's window (a new one when it ended); False when it is spent."""
    now = utcnow()
    start = col(ApiUser.otp_window_start)
    ended = or_(start.is_(None), start <= now - timedelta(seconds=policy.otp_window_seconds))
    counted = await session.execute(
        update(ApiUser)
        .where(user, or_(ended, col(ApiUser.otp_failures) < policy.otp_max_failures))
        .values(
            otp_failures=case((ended, 1), else_=col(ApiUser.otp_failures) + 1),
            otp_window_start=case((ended, literal(now, UTCDateTime())), else_=start),
        )
        .returning(col(ApiUser.id))
    )
    return counted.first() is not None


class _PresentedRow(NamedTuple):
    """The token with its vendor's code and its API user's agent, beside the acting agent's columns (all None when
    there is none)."""

    token_vendor_id: int
    token_api_user_id: int
    token_login_log_id: int | None
    token_used_at: datetime | None
    token_expires_at: datetime
    vendor_code: str
    vendor_require_payment: bool
    bound_agent_id: int | None
    id: int | None
    username: str | None
    vendor_id: int | None
    active: bool | None
    roles: str | None
    email: str | None
    requires_api_password: bool | None
    api_password_hash: str | None


# Core statements built once, on the tables: every authenticated call runs them. The token's own columns are
# labelled: the agent's columns beside them have a vendor_id of their own.
_TOKENS, _VENDORS, _USERS, _AGENTS = table("api_token"), table("vendor"), table("api_user"), table("agent")
_NAMED = _AGENTS.alias("named")
_BY_HASH = _TOKENS.c.token_hash == bindparam("hashed")
# The acting agent, read with the token in its one query: the API user's own agent when it is an agent's (the name
# in the body is then only compared), else the agent the body names (its id found first, by the vendor's unique
# name). Each join is an index lookup: an OR in one join's condition made PostgreSQL read all the vendor's agents.
_NAMED_ONE = sqlalchemy.and_(
    _USERS.c.agent_id.is_(None), _NAMED.c.vendor_id == _TOKENS.c.vendor_id, _NAMED.c.username == bindparam("username")
)
_ACTING = sqlalchemy.and_(
    _AGENTS.c.id == sqlalchemy.func.coalesce(_USERS.c.agent_id, _NAMED.c.id), _AGENTS.c.vendor_id == _TOKENS.c.vendor_id
)
_PRESENT = (
    sqlalchemy.select(
        _TOKENS.c.vendor_id.label("token_vendor_id"),
        _TOKENS.c.api_user_id.label("token_api_user_id"),
        _TOKENS.c.login_log_id.label("token_login_log_id"),
        _TOKENS.c.used_at.label("token_used_at"),
        _TOKENS.c.expires_at.label("token_expires_at"),
        _VENDORS.c.code.label("vendor_code"),
        _VENDORS.c.require_payment.label("vendor_require_payment"),
        _USERS.c.agent_id.label("bound_agent_id"),
        *(_AGENTS.c[field.name] for field in fields(AgentRef)),  # AgentRef's own: what the named agent is made of
    )
    .select_from(_TOKENS)
    .join(_VENDORS, _VENDORS.c.id == _TOKENS.c.vendor_id)
    .join(_USERS, _USERS.c.id == _TOKENS.c.api_user_id)
    .outerjoin(_NAMED, _NAMED_ONE)
    .outerjoin(_AGENTS, _ACTING)
    .where(_BY_HASH)
)
_USED_AT = sqlalchemy.select(_TOKENS.c.used_at).where(_BY_HASH)
_UNUSED = (_BY_HASH, _TOKENS.c.used_at.is_(None), _TOKENS.c.expires_at > bindparam("now"))
_CLAIM = update(_TOKENS).where(*_UNUSED).values(used_at=bindparam("now"))
# PostgreSQL: the claim as a data-modifying CTE of the read. The read sees the row as the statement found it (its
# snapshot), and `claimed` says whether this statement's UPDATE took it: unused in the snapshot but not claimed is a
# token another request claimed first (the UPDATE waited for its row lock, then found it used).
_CLAIMED = _CLAIM.returning(_TOKENS.c.id).cte("claimed")
_PRESENT_CLAIMING = _PRESENT.add_columns(_CLAIMED.c.id.is_not(None).label("claimed")).outerjoin(
    _CLAIMED, _CLAIMED.c.id == _TOKENS.c.id
)
_ISSUE = insert(_TOKENS)
_AUDIT_TABLE = table("audit_log")
_AUDIT = insert(_AUDIT_TABLE)
_TOKEN_COLUMNS = ("token_hash", "vendor_id", "api_user_id", "login_log_id", "issued_at", "expires_at")
_AUDIT_COLUMNS = (
    "request_id", "path", "action", "vendor_id", "api_user_id", "agent_username", "msg_code", "http_status",
    "duration_ms", "at",
)  # fmt: skip
# The next token's INSERT as a CTE of the audit row's (PostgreSQL runs a data-modifying CTE whether or not the
# statement reads it): the call's two last writes in one round trip.
_ISSUED = _ISSUE.values({name: bindparam(f"token_{name}") for name in _TOKEN_COLUMNS}).cte("issued")
_ISSUE_AND_AUDIT = insert(_AUDIT_TABLE).values({name: bindparam(name) for name in _AUDIT_COLUMNS}).add_cte(_ISSUED)
