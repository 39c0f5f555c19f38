"""Login rows: API users, agents' API passwords and customer logins with their throttling, and the login-log
entries (and OTPs) a session works under."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, case, literal, or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.sqltypes import UTCDateTime

from models.clock import utcnow
from models.settings import Settings
from models.tables.agent import Agent
from models.tables.customer_login import CustomerLogin
from models.tables.session import LoginLog
from models.tables.vendor import ApiUser, Vendor
from persistence.uow import UnitOfWork


async def active_api_user(session: AsyncSession, *, vendor_code: str, username: str) -> ApiUser | None:
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
    """LINEUP_LOGIN_MAX_FAILURES attempts without a success lock a login for LINEUP_LOGIN_LOCKOUT_SECONDS."""

    max_failures: int
    lockout_seconds: int

    @classmethod
    def of(cls, settings: Settings) -> Throttle:
        return cls(settings.login_max_failures, settings.login_lockout_seconds)


async def claim_attempt(session: AsyncSession, table: Any, row: Any, throttle: Throttle) -> bool:
    """Counts one attempt on the row of `table` (a table with failed_logins and locked_until) BEFORE its secret
    is verified; False, counting nothing, while the row is locked. The attempt that reaches the limit locks the
    row itself, so of any number of concurrent attempts at most `max_failures` get to verify. One conditional
    UPDATE is the whole race, on SQLite and PostgreSQL alike; a success clears the count (`clear_attempts`)."""
    now = utcnow()
    lock_ended = and_(col(table.locked_until).is_not(None), col(table.locked_until) <= now)
    count = case((lock_ended, 1), else_=table.failed_logins + 1)
    until = literal(now + timedelta(seconds=throttle.lockout_seconds), UTCDateTime())
    claimed = await session.execute(
        update(table)
        .where(row, or_(col(table.locked_until).is_(None), col(table.locked_until) <= now))
        .values(failed_logins=count, locked_until=case((count >= throttle.max_failures, until), else_=None))
        .returning(table.failed_logins)
    )
    return claimed.first() is not None


async def clear_attempts(session: AsyncSession, table: Any, row: Any) -> None:
    await session.execute(update(table).where(row).values(failed_logins=0, locked_until=None))


async def claim_agent_attempt(uow: UnitOfWork, agent_id: int, throttle: Throttle) -> bool:
    """One agent_password verification may go ahead (see `claim_attempt`)."""
    async with uow.transaction() as session:
        return await claim_attempt(session, Agent, col(Agent.id) == agent_id, throttle)


async def clear_agent_attempts(uow: UnitOfWork, agent_id: int) -> None:
    async with uow.transaction() as session:
        await clear_attempts(session, Agent, col(Agent.id) == agent_id)


async def claim_customer_attempt(uow: UnitOfWork, enrollment_id: str, throttle: Throttle) -> bool:
    """One customer-login verification for the line may go ahead (see `claim_attempt`); the line's throttle
    row is made by its first attempt."""
    row = col(CustomerLogin.enrollment_id) == enrollment_id
    async with uow.transaction() as session:
        if await claim_attempt(session, CustomerLogin, row, throttle):
            return True
        # No row yet, or a locked one. INSERT … ON CONFLICT DO NOTHING: a row a concurrent first attempt made
        # stays as it is, and nothing rolls back (a rollback would expire the line the caller holds).
        insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
        await session.execute(insert(CustomerLogin).values(enrollment_id=enrollment_id).on_conflict_do_nothing())
        return await claim_attempt(session, CustomerLogin, row, throttle)


async def clear_customer_attempts(uow: UnitOfWork, enrollment_id: str) -> None:
    async with uow.transaction() as session:
        await clear_attempts(session, CustomerLogin, col(CustomerLogin.enrollment_id) == enrollment_id)


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
        return cls(settings.login_otp_ttl_hours, settings.login_otp_max_failures, settings.login_otp_window_seconds)


@dataclass(frozen=True)
class OtpCheck:
    entry_id: int | None  # the open login-log entry the OTP names, None for a wrong OTP
    throttled: bool = False  # refused unread: too many wrong OTPs in the window


async def check_otp(uow: UnitOfWork, *, vendor_id: int, api_user_id: int, otp: str, policy: OtpPolicy) -> OtpCheck:
    """The vendor's open, unexpired login-log entry with this OTP. The guess is counted against the token's API
    user before the entry is looked up (so concurrent guesses cannot outrun the limit) and given back when
    the OTP was right: the count is of wrong OTPs only."""
    user = col(ApiUser.id) == api_user_id
    async with uow.transaction() as session:
        if not await _count_otp_guess(session, user, policy):
            return OtpCheck(None, throttled=True)
        entry = await open_login_entry(session, vendor_id=vendor_id, otp=otp, ttl_hours=policy.ttl_hours)
        if entry is not None:
            await session.execute(update(ApiUser).where(user).values(otp_failures=col(ApiUser.otp_failures) - 1))
    return OtpCheck(entry.id if entry is not None else None)


async def _count_otp_guess(session: AsyncSession, user: Any, policy: OtpPolicy) -> bool:
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


async def open_login_entry(session: AsyncSession, *, vendor_id: int, otp: str, ttl_hours: float) -> LoginLog | None:
    """The vendor's most recent login-log entry with this OTP that is neither closed nor expired, or None."""
    opened_after = utcnow() - timedelta(hours=ttl_hours)
    query = (
        select(LoginLog)
        .where(LoginLog.vendor_id == vendor_id, LoginLog.otp == otp, col(LoginLog.closed_at).is_(None))
        .where(col(LoginLog.opened_at) > opened_after)
        .order_by(col(LoginLog.opened_at).desc())
    )
    return (await session.exec(query)).first()


async def close_login_entries(session: AsyncSession, *, api_user_id: int, keep: int | None = None) -> None:
    """Closes the API user's open login-log entries (their OTPs stop working), except the entry `keep`."""
    query = update(LoginLog).where(col(LoginLog.api_user_id) == api_user_id, col(LoginLog.closed_at).is_(None))
    if keep is not None:
        query = query.where(col(LoginLog.id) != keep)
    await session.execute(query.values(closed_at=utcnow()))


async def close_login_entry(session: AsyncSession, entry_id: int) -> None:
    query = update(LoginLog).where(col(LoginLog.id) == entry_id, col(LoginLog.closed_at).is_(None))
    await session.execute(query.values(closed_at=utcnow()))
