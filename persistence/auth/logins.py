"""Login rows: API users, agents' API passwords and customer logins with their throttling, and the login-log
entries (and OTPs) a session works under."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum

from sqlalchemy import ColumnElement, case, literal, or_, update
from sqlmodel import col, select
from sqlmodel.sql.sqltypes import UTCDateTime

from models.clock import utcnow
from models.crypto import FieldCipher
from models.settings import Settings
from models.tables.agents import Agent
from models.tables.auth import ApiUser, CustomerLogin, LoginLog, Vendor
from models.tables.support import ConsoleLogin
from persistence.core import insert_or_skip
from persistence.transaction import DbSession
from persistence.uow import UnitOfWork

LOCKED = "Too many failed logins; try again later"  # what every throttled login answers while refused


async def active_api_user(session: DbSession, *, vendor_code: str, username: str) -> ApiUser | None:
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


async def claim_attempt(session: DbSession, table: Throttled, row: Row, throttle: Throttle) -> Claim:
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


async def settle_attempt(session: DbSession, table: Throttled, row: Row, throttle: Throttle, *, ok: bool) -> bool:
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


async def _count_otp_guess(session: DbSession, user: Row, policy: OtpPolicy) -> bool:
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


async def open_login_entry(session: DbSession, *, vendor_id: int, otp_hash: str, ttl_hours: float) -> LoginLog | None:
    """The vendor's most recent login-log entry with this OTP (its otp_digest) neither closed nor expired, or None."""
    opened_after = utcnow() - timedelta(hours=ttl_hours)
    query = (
        select(LoginLog)
        .where(LoginLog.vendor_id == vendor_id, LoginLog.otp == otp_hash, col(LoginLog.closed_at).is_(None))
        .where(col(LoginLog.opened_at) > opened_after)
        .order_by(col(LoginLog.opened_at).desc())
    )
    return (await session.exec(query)).first()


async def close_login_entries(session: DbSession, *, api_user_id: int, keep: int | None = None) -> None:
    """Closes the API user's open login-log entries (their OTPs stop working), except the entry `keep`."""
    query = update(LoginLog).where(col(LoginLog.api_user_id) == api_user_id, col(LoginLog.closed_at).is_(None))
    if keep is not None:
        query = query.where(col(LoginLog.id) != keep)
    await session.execute(query.values(closed_at=utcnow()))


async def close_login_entry(session: DbSession, entry_id: int) -> None:
    query = update(LoginLog).where(col(LoginLog.id) == entry_id, col(LoginLog.closed_at).is_(None))
    await session.execute(query.values(closed_at=utcnow()))
