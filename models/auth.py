"""Tables of the auth domain: vendors (the carrier's sales companies) and the API users that authenticate for
them, single-use tokens (hash only) and the login log each authentication opens, customer logins
(saved_card_list) throttled per line, and agent password changes with their proof images."""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
import time
from dataclasses import dataclass

# models/tables/agents.py: Tables of the agents domain: agents (the people behind `agent_id`), the locations they report and the
# models/tables/audit.py: One row per operation call: who, what, outcome, when. Never the body.
# models/tables/support.py: Tables of the support domain: sessions of the support console (api/console), a browser's signed-in agent
# persistence/agents.py: Agents as the access checks and services see them: plain values read once per request, so nothing
# persistence/auth/tokens.py: Single-use tokens: issued on /authenticate and after every accepted token, claimed atomically. A request
# persistence/auth/logins.py: Login rows: API users, agents' API passwords and customer logins with their throttling, and the login-log
# persistence/audit.py: The audit log: one row per operation call (who, what, outcome, how long), never the request body.
# models/requests/auth.py: Requests of the auth domain: `/authenticate`'s form, agent_change_password and logout.
from datetime import datetime, timedelta
from enum import Enum
from typing import NamedTuple, Protocol, cast

import sqlalchemy
from pydantic import ConfigDict, Field
from sqlalchemy import ColumnElement, UniqueConstraint, bindparam, case, delete, insert, literal, or_, update
from sqlmodel import Field as Column
from sqlmodel import SQLModel, col, select
from sqlmodel.sql.sqltypes import UTCDateTime

from models.crypto import FieldCipher
from models.db import Session, UnitOfWork, insert_or_skip, table
from models.envelope import TokenRefused
from models.settings import Settings
from models.types import ActionRequest, Raw32, Raw100, Raw128, WellFormedText, utcnow


class Vendor(SQLModel, table=True):
    __tablename__ = "vendor"

    id: int | None = Column(default=None, primary_key=True)
    code: str = Column(max_length=32, unique=True)  # the `vendor_id` channels send, e.g. DEMO
    name: str = Column(max_length=200)
    active: bool = True
    created_at: datetime = Column(default_factory=utcnow)
    # A line activates only with a settled payment covering its plan (`lineup vendor set --require-payment`).
    require_payment: bool = False


class ApiUser(SQLModel, table=True):
    """Credentials for `POST /authenticate`: username, password and PIN, hashed with argon2."""

    __tablename__ = "api_user"
    __table_args__ = (UniqueConstraint("vendor_id", "username"),)

    id: int | None = Column(default=None, primary_key=True)
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    username: str = Column(max_length=100)
    password_hash: str = Column(max_length=255)
    pin_hash: str = Column(max_length=255)
    # argon2 of password and PIN together: one verification a login (services/auth/authenticate.py). None until
    # a login with both right sets it (rows from before it, and after a password change, which knows no PIN).
    login_hash: str | None = Column(default=None, max_length=255)
    active: bool = True
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0  # logins claimed and still being verified, since pending_since (persistence/logins.py)
    pending_since: datetime | None = None
    # Wrong login-log OTPs this user sent in the window that began at otp_window_start (persistence/logins.py).
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
    otp: str = Column(max_length=64, index=True)  # the OTP's keyed digest (persistence.auth.logins.otp_digest)
    ip_address: str | None = Column(default=None, max_length=45)
    opened_at: datetime = Column(default_factory=utcnow)
    closed_at: datetime | None = None
    latitude: str | None = Column(default=None, max_length=32)
    longitude: str | None = Column(default=None, max_length=32)


class CustomerLogin(SQLModel, table=True):
    __tablename__ = "customer_login"

    enrollment_id: str = Column(primary_key=True, foreign_key="line.enrollment_id", max_length=24)
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0
    pending_since: datetime | None = None


# `payments` records payments taken outside Lineup (make_payment CASH or OTHER_PAYMENT_OPTION): a vendor grants it
# to its storefronts' and cash desks' agents; `support` uses /ops and the console. No role implies another.
ROLES = ("agent", "payments", "support", "admin")


class Agent(SQLModel, table=True):
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
    # Throttling of agent_password, as API-user logins are throttled (persistence/logins.py).
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0
    pending_since: datetime | None = None
    password_changed_at: datetime | None = None
    created_at: datetime = Column(default_factory=utcnow)

    @property
    def role_set(self) -> frozenset[str]:
        return role_set(self.roles)


def role_set(roles: str) -> frozenset[str]:
    """The roles column's comma-separated names."""
    return frozenset(r for r in roles.split(",") if r)


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


class ConsoleLogin(SQLModel, table=True):
    """The console sign-in's throttle of one support agent, apart from its API password's (Agent.failed_logins):
    failed sign-ins lock the console only, never the agent's API calls (persistence/auth/logins.py)."""

    __tablename__ = "console_login"

    agent_id: int = Column(primary_key=True, foreign_key="agent.id")
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0
    pending_since: datetime | None = None


class AgentFields(Protocol):
    """An agent's columns as a row of AGENT_COLUMNS carries them."""

    @property
    def id(self) -> int: ...
    @property
    def username(self) -> str: ...
    @property
    def vendor_id(self) -> int: ...
    @property
    def active(self) -> bool: ...
    @property
    def roles(self) -> str: ...
    @property
    def email(self) -> str | None: ...
    @property
    def requires_api_password(self) -> bool: ...
    @property
    def api_password_hash(self) -> str | None: ...


@dataclass(frozen=True)
class AgentRef:
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
        """From an Agent read from the database (so it has its id)."""
        assert agent.id is not None
        return cls.of(cast(AgentFields, agent))

    @classmethod
    def of(cls, row: AgentFields) -> AgentRef:
        """From a row of AGENT_COLUMNS."""
        return cls(
            id=row.id,
            username=row.username,
            vendor_id=row.vendor_id,
            active=row.active,
            roles=role_set(row.roles),
            email=row.email,
            requires_api_password=row.requires_api_password,
            api_password_hash=row.api_password_hash,
        )


_AGENTS = table("agent")


# The agent as the token read finds it (persistence.auth.tokens): columns of the table, not the ORM entity.
AGENT_COLUMNS = (
    _AGENTS.c.id,
    _AGENTS.c.username,
    _AGENTS.c.vendor_id,
    _AGENTS.c.active,
    _AGENTS.c.roles,
    _AGENTS.c.email,
    _AGENTS.c.requires_api_password,
    _AGENTS.c.api_password_hash,
)


@dataclass(frozen=True)
class TokenOwner:
    vendor_id: int
    api_user_id: int
    login_log_id: int | None


@dataclass(frozen=True)
class Presented:
    """The token a request presents, found unused and unexpired, with its vendor and the agent the request names
    among that vendor's agents (a username is unique within its vendor only: decisions.md, "Agents per
    vendor"), so another vendor's agent of that name is no agent at all here."""

    hashed: str
    owner: TokenOwner
    vendor_code: str
    agent: AgentRef | None
    require_payment: bool = False  # the vendor's, read with the token: creates and activations check it


class _PresentedRow(NamedTuple):
    """The token with its vendor's code, beside the named agent's AGENT_COLUMNS (all None when there is none)."""

    token_vendor_id: int
    token_api_user_id: int
    token_login_log_id: int | None
    token_used_at: datetime | None
    token_expires_at: datetime
    vendor_code: str
    vendor_require_payment: bool
    id: int | None
    username: str | None
    vendor_id: int | None
    active: bool | None
    roles: str | None
    email: str | None
    requires_api_password: bool | None
    api_password_hash: str | None

    def agent(self) -> AgentRef | None:
        # The outer join found the agent or nothing: with its id, every column of it is there.
        return AgentRef.of(cast(AgentFields, self)) if self.id is not None else None


class _Found(NamedTuple):
    id: int
    used_at: datetime | None


# Built once, on the tables (persistence.core): every authenticated call runs these.
_TOKENS, _VENDORS, _TOKEN_AGENTS = table("api_token"), table("vendor"), table("agent")


_ISSUE = insert(_TOKENS)


# The token's own columns are labelled: the agent's columns beside them have a vendor_id of their own.
_PRESENT = (
    sqlalchemy.select(
        _TOKENS.c.vendor_id.label("token_vendor_id"),
        _TOKENS.c.api_user_id.label("token_api_user_id"),
        _TOKENS.c.login_log_id.label("token_login_log_id"),
        _TOKENS.c.used_at.label("token_used_at"),
        _TOKENS.c.expires_at.label("token_expires_at"),
        _VENDORS.c.code.label("vendor_code"),
        _VENDORS.c.require_payment.label("vendor_require_payment"),
        *AGENT_COLUMNS,
    )
    .select_from(_TOKENS)
    .join(_VENDORS, _VENDORS.c.id == _TOKENS.c.vendor_id)
    .outerjoin(
        _TOKEN_AGENTS,
        sqlalchemy.and_(
            _TOKEN_AGENTS.c.username == bindparam("username"), _TOKEN_AGENTS.c.vendor_id == _TOKENS.c.vendor_id
        ),
    )
    .where(_TOKENS.c.token_hash == bindparam("hashed"))
)


_FIND = sqlalchemy.select(_TOKENS.c.id, _TOKENS.c.used_at).where(_TOKENS.c.token_hash == bindparam("hashed"))


_CLAIM = (
    update(_TOKENS)
    .where(
        _TOKENS.c.token_hash == bindparam("hashed"),
        _TOKENS.c.used_at.is_(None),
        _TOKENS.c.expires_at > bindparam("now"),
    )
    .values(used_at=bindparam("now"))
)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


async def store(transaction: Session, token: str, owner: TokenOwner, ttl_seconds: int) -> None:
    """Stores `token` (its hash) as the owner's next single-use token."""
    now = utcnow()
    # A Core INSERT: the row is never read back in this session, so the ORM's unit of work is pure cost.
    await transaction.run(
        _ISSUE,
        {
            "token_hash": digest(token),
            "vendor_id": owner.vendor_id,
            "api_user_id": owner.api_user_id,
            "login_log_id": owner.login_log_id,
            "issued_at": now,
            "expires_at": now + timedelta(seconds=ttl_seconds),
        },
    )


async def issue(transaction: Session, owner: TokenOwner, ttl_seconds: int) -> str:
    """A new token for the owner, stored in the transaction."""
    token = new_token()
    await store(transaction, token, owner, ttl_seconds)
    return token


async def present(transaction: Session, token: str | None, *, username: str | None) -> Presented:
    """The presented token, still unused and unexpired, with its vendor and the named agent; else the refusal."""
    if not token:
        raise TokenRefused("missing", "Invalid Token")
    hashed = digest(token)
    rows = await transaction.rows(_PRESENT, {"hashed": hashed, "username": username})
    if not rows:
        raise TokenRefused("unknown", "Invalid Token")
    row = _PresentedRow._make(rows[0])
    if row.token_used_at is not None:
        raise TokenRefused("used", "Token already used")
    if row.token_expires_at <= utcnow():
        raise TokenRefused("expired", "Token expire")
    owner = TokenOwner(row.token_vendor_id, row.token_api_user_id, row.token_login_log_id)
    return Presented(hashed, owner, row.vendor_code, row.agent(), row.vendor_require_payment)


async def claim(transaction: Session, hashed: str) -> None:
    """Marks the presented token used. The conditional UPDATE is the whole race: one request matches the row."""
    if await transaction.run(_CLAIM, {"hashed": hashed, "now": utcnow()}) != 1:
        # Lost to a request presenting the same token, or it expired, or its session ended, since `present`.
        found = next((_Found._make(row) for row in await transaction.rows(_FIND, {"hashed": hashed})), None)
        if found is None:
            raise TokenRefused("unknown", "Invalid Token")
        raise (
            TokenRefused("expired", "Token expire")
            if found.used_at is None
            else TokenRefused("used", "Token already used")
        )


async def revoke(session: Session, api_user_id: int, *, keep: str | None = None) -> None:
    """Ends every outstanding token of the API user (they then answer `Token expire`), except `keep`."""
    now = utcnow()
    query = update(ApiToken).where(
        col(ApiToken.api_user_id) == api_user_id,
        col(ApiToken.used_at).is_(None),
        col(ApiToken.expires_at) > now,
    )
    if keep is not None:
        query = query.where(col(ApiToken.token_hash) != digest(keep))
    await session.execute(query.values(expires_at=now))


async def drop_all(session: Session, api_user_id: int) -> None:
    """Deletes every token of the API user (it was disabled): they then answer as an unknown token does."""
    await session.execute(delete(ApiToken).where(col(ApiToken.api_user_id) == api_user_id))


async def drop_session(session: Session, login_log_id: int | None) -> None:
    """Deletes the tokens of one session (logout): those chained from its /authenticate."""
    if login_log_id is not None:
        await session.execute(delete(ApiToken).where(col(ApiToken.login_log_id) == login_log_id))


LOCKED = "Too many failed logins; try again later"  # what every throttled login answers while refused


async def active_api_user(session: Session, *, vendor_code: str, username: str) -> ApiUser | None:
    """The active API user of an active vendor, or None."""
    query = (
        select(ApiUser)
        .join(Vendor, col(Vendor.id) == col(ApiUser.vendor_id))
        .where(Vendor.code == vendor_code.strip().upper(), ApiUser.username == username.strip())
        .where(col(Vendor.active), col(ApiUser.active))
    )
    return (await session.exec(query)).first()


@dataclass(frozen=True)
class Throttle:
    """LINEUP_LOGIN_MAX_FAILURES failures without a success lock a login for LINEUP_LOGIN_LOCKOUT_SECONDS. Of one
    login's attempts at most `max_failures` may be pending (claimed, secret still being verified) or failed at
    once: a claim beyond that waits up to `wait_seconds` for a slot. A pending claim older than `stale_seconds`
    is taken for one whose process died before settling it."""

    max_failures: int
    lockout_seconds: int
    # A burst's last logins wait about as long as the burst's verifications take the CPUs (50 channels on two
    # busy cores: ~12 s); past this, the login is refused as a locked one would be.
    wait_seconds: float = 30.0
    stale_seconds: int = 60  # far beyond one verification (two argon2 checks, ~0.1 s)

    @classmethod
    def of(cls, settings: Settings) -> Throttle:
        auth = settings.auth
        return cls(auth.max_failures, auth.lockout_seconds, auth.wait_seconds, auth.stale_seconds)


class Claim(Enum):
    GRANTED = "granted"  # verify the secret, then settle the attempt
    FULL = "full"  # every slot is pending or failed: try again shortly
    LOCKED = "locked"  # refused unread until the lockout ends (or the row does not exist)


# Seconds between the claims of a waiting attempt: doubling from the first to the longest, so a burst's waiters
# do not spend the CPU the verifications need on polling, and jittered so that they do not poll in step.
WAIT_FIRST, WAIT_LONGEST = 0.02, 0.5


# The tables whose rows carry a throttle (failed_logins, locked_until, pending_logins, pending_since), and the
# condition that picks one row of them.
Throttled = type[Agent] | type[ApiUser] | type[CustomerLogin] | type[ConsoleLogin]


Row = ColumnElement[bool]


async def claim_attempt(session: Session, table: Throttled, row: Row, throttle: Throttle) -> Claim:
    """Claims one verification on the row of `table` (a table with failed_logins, locked_until, pending_logins
    and pending_since) BEFORE its secret is verified: granted while the row is not locked and failures plus
    pending attempts stay below `max_failures`. One conditional UPDATE is the whole race, on SQLite and
    PostgreSQL alike. An ended lock restarts the failures at 0; stale pending attempts count as 0."""
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
        return Claim.GRANTED
    state = (await session.execute(select(locked_until).where(row))).first()
    return Claim.FULL if state is not None and (state[0] is None or state[0] <= now) else Claim.LOCKED


async def claim_login(uow: UnitOfWork, table: Throttled, row: Row, throttle: Throttle) -> bool:
    """True when the attempt may verify its secret (settle it with `settle_login` afterwards); False while the
    row is locked, or when no slot came free within `wait_seconds`. Attempts in flight slow a burst of right
    secrets down, they never lock it out. Each claim is a transaction of its own: none is held while waiting."""
    deadline, pause = time.monotonic() + throttle.wait_seconds, WAIT_FIRST
    while True:
        async with uow.transaction() as session:
            claim = await claim_attempt(session, table, row, throttle)
        if claim is not Claim.FULL or time.monotonic() >= deadline:
            return claim is Claim.GRANTED
        await asyncio.sleep(random.uniform(pause / 2, pause))
        pause = min(pause * 2, WAIT_LONGEST)


async def settle_attempt(session: Session, table: Throttled, row: Row, throttle: Throttle, *, ok: bool) -> bool:
    """Ends a claimed attempt: a right secret clears the failures and any lock, a wrong one is counted and the
    failure that reaches `max_failures` locks the row. False when no row matched."""
    pending = col(table.pending_logins)
    values: dict[str, object] = {
        "pending_logins": case((pending > 1, pending - 1), else_=0),
        "pending_since": case((pending > 1, col(table.pending_since)), else_=None),
    }
    if ok:
        values |= {"failed_logins": 0, "locked_until": None}
    else:
        failed = col(table.failed_logins) + 1
        until = literal(utcnow() + timedelta(seconds=throttle.lockout_seconds), UTCDateTime())
        locks = case((failed >= throttle.max_failures, until), else_=col(table.locked_until))
        values |= {"failed_logins": failed, "locked_until": locks}
    settled = await session.execute(update(table).where(row).values(values).returning(col(table.pending_logins)))
    return settled.first() is not None


async def settle_login(uow: UnitOfWork, table: Throttled, row: Row, throttle: Throttle, *, ok: bool) -> None:
    async with uow.transaction() as session:
        await settle_attempt(session, table, row, throttle, ok=ok)


async def release_login(uow: UnitOfWork, table: Throttled, row: Row) -> None:
    """Gives back a claimed attempt whose secret was never verified (the verification queue was full): neither
    a failure nor a success."""
    pending = col(table.pending_logins)
    values = {
        "pending_logins": case((pending > 1, pending - 1), else_=0),
        "pending_since": case((pending > 1, col(table.pending_since)), else_=None),
    }
    async with uow.transaction() as session:
        await session.execute(update(table).where(row).values(values))


def _agent(agent_id: int) -> Row:
    return col(Agent.id) == agent_id


async def claim_agent_attempt(uow: UnitOfWork, agent_id: int, throttle: Throttle) -> bool:
    """One agent_password verification may go ahead (see `claim_login`)."""
    return await claim_login(uow, Agent, _agent(agent_id), throttle)


async def settle_agent_attempt(uow: UnitOfWork, agent_id: int, throttle: Throttle, *, ok: bool) -> None:
    await settle_login(uow, Agent, _agent(agent_id), throttle, ok=ok)


def _customer(enrollment_id: str) -> Row:
    return col(CustomerLogin.enrollment_id) == enrollment_id


async def claim_customer_attempt(uow: UnitOfWork, enrollment_id: str, throttle: Throttle) -> bool:
    """One customer-login verification for the line may go ahead (see `claim_login`); the line's throttle
    row is made by its first attempt."""
    async with uow.transaction() as session:
        await insert_or_skip(session, CustomerLogin, {"enrollment_id": enrollment_id})
    return await claim_login(uow, CustomerLogin, _customer(enrollment_id), throttle)


async def settle_customer_attempt(uow: UnitOfWork, enrollment_id: str, throttle: Throttle, *, ok: bool) -> None:
    await settle_login(uow, CustomerLogin, _customer(enrollment_id), throttle, ok=ok)


def _console(agent_id: int) -> Row:
    return col(ConsoleLogin.agent_id) == agent_id


async def claim_console_attempt(uow: UnitOfWork, agent_id: int, throttle: Throttle) -> bool:
    """One console sign-in of the agent may verify its password (see `claim_login`): counted on the console's
    own row, so failed sign-ins never lock the agent's API password; the row is made by the first attempt."""
    async with uow.transaction() as session:
        await insert_or_skip(session, ConsoleLogin, {"agent_id": agent_id})
    return await claim_login(uow, ConsoleLogin, _console(agent_id), throttle)


async def settle_console_attempt(uow: UnitOfWork, agent_id: int, throttle: Throttle, *, ok: bool) -> None:
    await settle_login(uow, ConsoleLogin, _console(agent_id), throttle, ok=ok)


async def release_console_attempt(uow: UnitOfWork, agent_id: int) -> None:
    await release_login(uow, ConsoleLogin, _console(agent_id))


@dataclass(frozen=True)
class OtpPolicy:
    """A login-log OTP works for LINEUP_LOGIN_OTP_TTL_HOURS after /authenticate opened it, until logout or a
    password change closes it. Each API user may send LINEUP_LOGIN_OTP_MAX_FAILURES wrong OTPs in a window of
    LINEUP_LOGIN_OTP_WINDOW_SECONDS (the window begins at the first wrong one); after that its OTP checks are
    refused, right OTPs included, until the window ends."""

    ttl_hours: float
    max_failures: int
    window_seconds: int

    @classmethod
    def of(cls, settings: Settings) -> OtpPolicy:
        return cls(settings.auth.otp_ttl_hours, settings.auth.otp_max_failures, settings.auth.otp_window_seconds)


@dataclass(frozen=True)
class OtpCheck:
    entry_id: int | None  # the open login-log entry the OTP names, None for a wrong OTP
    throttled: bool = False  # refused unread: too many wrong OTPs in the window


def otp_digest(cipher: FieldCipher, otp: str) -> str:
    """What a login-log entry keeps of its OTP: the keyed digest (six digits unkeyed would be read back at once)."""
    return cipher.digest("login-otp", otp)


async def check_otp(uow: UnitOfWork, *, vendor_id: int, api_user_id: int, otp_hash: str, policy: OtpPolicy) -> OtpCheck:
    """The vendor's open, unexpired login-log entry with this OTP. The guess is counted against the token's API
    user before the entry is looked up (so concurrent guesses cannot outrun the limit) and given back when
    the OTP was right: the count is of wrong OTPs only."""
    user = col(ApiUser.id) == api_user_id
    async with uow.transaction() as session:
        if not await _count_otp_guess(session, user, policy):
            return OtpCheck(None, throttled=True)
        entry = await open_login_entry(session, vendor_id=vendor_id, otp_hash=otp_hash, ttl_hours=policy.ttl_hours)
        if entry is not None:
            await session.execute(update(ApiUser).where(user).values(otp_failures=col(ApiUser.otp_failures) - 1))
    return OtpCheck(entry.id if entry is not None else None)


async def _count_otp_guess(session: Session, user: Row, policy: OtpPolicy) -> bool:
    now = utcnow()
    start = col(ApiUser.otp_window_start)
    ended = or_(start.is_(None), start <= now - timedelta(seconds=policy.window_seconds))
    counted = await session.execute(
        update(ApiUser)
        .where(user, or_(ended, col(ApiUser.otp_failures) < policy.max_failures))
        .values(
            otp_failures=case((ended, 1), else_=col(ApiUser.otp_failures) + 1),
            otp_window_start=case((ended, literal(now, UTCDateTime())), else_=start),
        )
        .returning(col(ApiUser.id))
    )
    return counted.first() is not None


async def open_login_entry(session: Session, *, vendor_id: int, otp_hash: str, ttl_hours: float) -> LoginLog | None:
    """The vendor's most recent login-log entry with this OTP (its otp_digest) neither closed nor expired, or None."""
    opened_after = utcnow() - timedelta(hours=ttl_hours)
    query = (
        select(LoginLog)
        .where(LoginLog.vendor_id == vendor_id, LoginLog.otp == otp_hash, col(LoginLog.closed_at).is_(None))
        .where(col(LoginLog.opened_at) > opened_after)
        .order_by(col(LoginLog.opened_at).desc())
    )
    return (await session.exec(query)).first()


async def close_login_entries(session: Session, *, api_user_id: int, keep: int | None = None) -> None:
    """Closes the API user's open login-log entries (their OTPs stop working), except the entry `keep`."""
    query = update(LoginLog).where(col(LoginLog.api_user_id) == api_user_id, col(LoginLog.closed_at).is_(None))
    if keep is not None:
        query = query.where(col(LoginLog.id) != keep)
    await session.execute(query.values(closed_at=utcnow()))


async def close_login_entry(session: Session, entry_id: int) -> None:
    query = update(LoginLog).where(col(LoginLog.id) == entry_id, col(LoginLog.closed_at).is_(None))
    await session.execute(query.values(closed_at=utcnow()))


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


_INSERT = insert(table("audit_log"))


async def write_audit(transaction: Session, facts: AuditFacts) -> None:
    """The row, in the transaction that commits the call's work (or its own, for a call refused early)."""
    row = {
        "request_id": facts.request_id,
        "at": utcnow(),
        "path": facts.path[:100],
        "action": (facts.action or "")[:64] or None,
        "vendor_id": facts.vendor_id,
        "api_user_id": facts.api_user_id,
        "agent_username": facts.agent_username,
        "msg_code": facts.msg_code,
        "http_status": facts.http_status,
        "duration_ms": facts.duration_ms,
    }
    await transaction.run(_INSERT, row)


async def record_audit(uow: UnitOfWork, facts: AuditFacts) -> None:
    """Written in a transaction of its own (a call answered before the dispatcher could write it)."""
    uow.before_commit(lambda transaction: write_audit(transaction, facts))
    await uow.commit()


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
