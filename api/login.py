"""Checks API-user credentials with throttling, and opens the login-log entry a session works under."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import update
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from api import tokens
from api.errors import LineupError, refuse
from models.db import transaction, utcnow
from models.envelope import MsgCode
from models.passwords import verify_secret_async
from models.requests.authenticate import AuthenticateRequest
from models.settings import Settings
from models.tables.session import LoginLog
from models.tables.vendor import ApiUser, Vendor

INVALID = "Invalid credentials!!"


@dataclass(frozen=True)
class Login:
    token: str
    otp: str


def invalid(*errors: str, rest_status: int = 401) -> LineupError:
    return LineupError(MsgCode.TOKEN, INVALID, list(errors) or None, rest_status=rest_status)


async def authenticate(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, form: AuthenticateRequest, ip: str | None
) -> Login:
    if missing := form.missing():
        raise invalid(*missing)
    user = await _find_user(sessions, str(form.vendor_id), str(form.username))
    if user is not None and user.locked_until is not None and user.locked_until > utcnow():
        raise invalid("Too many failed logins; try again later", rest_status=429)
    # Both secrets are always verified, so a wrong PIN costs as much time as a wrong password.
    password_ok = await verify_secret_async(user.password_hash if user else None, str(form.password))
    pin_ok = await verify_secret_async(user.pin_hash if user else None, str(form.pin))
    if user is None or not (password_ok and pin_ok):
        if user is not None:
            await _count_failure(sessions, settings, user)
        raise invalid()
    return await _open_session(sessions, settings, user, ip)


async def open_login_entry(session: AsyncSession, vendor_id: int, otp: str) -> LoginLog:
    """The vendor's open login-log entry with this OTP, or `Please provide valid otp`."""
    query = (
        select(LoginLog)
        .where(LoginLog.vendor_id == vendor_id, LoginLog.otp == otp, col(LoginLog.closed_at).is_(None))
        .order_by(col(LoginLog.opened_at).desc())
    )
    entry = (await session.exec(query)).first()
    if entry is None:
        raise refuse("Please provide valid otp")
    return entry


async def _find_user(sessions: async_sessionmaker[AsyncSession], vendor_code: str, username: str) -> ApiUser | None:
    async with sessions() as session:
        query = (
            select(ApiUser)
            .join(Vendor, col(Vendor.id) == col(ApiUser.vendor_id))
            .where(Vendor.code == vendor_code.strip().upper(), ApiUser.username == username.strip())
            .where(col(Vendor.active), col(ApiUser.active))
        )
        return (await session.exec(query)).first()


async def _count_failure(sessions: async_sessionmaker[AsyncSession], settings: Settings, user: ApiUser) -> None:
    async with transaction(sessions) as session:
        # Incremented in SQL so concurrent failures all count.
        await session.execute(
            update(ApiUser).where(col(ApiUser.id) == user.id).values(failed_logins=col(ApiUser.failed_logins) + 1)
        )
        failures = (await session.exec(select(ApiUser.failed_logins).where(ApiUser.id == user.id))).one()
        if failures >= settings.login_max_failures:
            until = utcnow() + timedelta(seconds=settings.login_lockout_seconds)
            await session.execute(
                update(ApiUser).where(col(ApiUser.id) == user.id).values(failed_logins=0, locked_until=until)
            )


async def _open_session(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, user: ApiUser, ip: str | None
) -> Login:
    assert user.id is not None
    # No leading zero: channels send the OTP back as a JSON number, which would drop it.
    otp = str(100_000 + secrets.randbelow(900_000))
    async with transaction(sessions) as session:
        await session.execute(
            update(ApiUser).where(col(ApiUser.id) == user.id).values(failed_logins=0, locked_until=None)
        )
        entry = LoginLog(vendor_id=user.vendor_id, api_user_id=user.id, otp=otp, ip_address=ip)
        session.add(entry)
        await session.flush()
        owner = tokens.TokenOwner(vendor_id=user.vendor_id, api_user_id=user.id, login_log_id=entry.id)
        token = await tokens.issue(session, owner, settings.token_ttl_seconds)
    return Login(token=token, otp=otp)
