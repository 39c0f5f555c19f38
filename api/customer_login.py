"""Customer login for saved_card_list: the line's enrollment e-mail and password, throttled per line as
API-user logins are (LINEUP_LOGIN_MAX_FAILURES failures lock it for LINEUP_LOGIN_LOCKOUT_SECONDS)."""

from __future__ import annotations

import hmac
from datetime import timedelta

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from activities.lines import email_hash
from api.errors import refuse
from models.db import transaction, utcnow
from models.passwords import verify_secret_async
from models.settings import Settings
from models.tables.customer_login import CustomerLogin
from models.tables.enrollment import Line

INVALID_PAIR = "Invalid username or password"


async def customer_login(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, *, vendor_id: int, enrollment_id: str,
    email: str, password: str,
) -> Line:  # fmt: skip
    """The vendor's line when the e-mail and password are its own, else `Invalid username or password`."""
    async with sessions() as session:
        line = await session.get(Line, enrollment_id)
        throttle = await session.get(CustomerLogin, enrollment_id)
    if line is not None and line.vendor_id != vendor_id:
        line = None  # another vendor's customer answers as an unknown one
    if (
        line is not None
        and throttle is not None
        and throttle.locked_until is not None
        and throttle.locked_until > utcnow()
    ):
        raise refuse("Too many failed logins; try again later", rest_status=429)
    # Always verified: an unknown line or a wrong e-mail costs as much time as a wrong password.
    email_ok = line is not None and hmac.compare_digest(line.email_hash, email_hash(email))
    password_ok = await verify_secret_async(line.password_hash if line else None, password)
    if line is None or not (email_ok and password_ok):
        if line is not None:
            await _count_failure(sessions, settings, enrollment_id)
        raise refuse(INVALID_PAIR, rest_status=401)
    if throttle is not None and throttle.failed_logins:
        async with transaction(sessions) as session:
            await session.execute(
                update(CustomerLogin).where(col(CustomerLogin.enrollment_id) == enrollment_id)
                .values(failed_logins=0, locked_until=None)
            )  # fmt: skip
    return line


async def _count_failure(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, enrollment_id: str
) -> None:
    try:
        async with transaction(sessions) as session:
            if await session.get(CustomerLogin, enrollment_id) is None:
                session.add(CustomerLogin(enrollment_id=enrollment_id))
    except IntegrityError:
        pass  # a concurrent failure made the row first
    row = col(CustomerLogin.enrollment_id) == enrollment_id
    async with transaction(sessions) as session:
        # Incremented in SQL so concurrent failures all count.
        await session.execute(
            update(CustomerLogin).where(row).values(failed_logins=col(CustomerLogin.failed_logins) + 1)
        )
        failures = (await session.exec(select(CustomerLogin.failed_logins).where(row))).one()
        if failures >= settings.login_max_failures:
            until = utcnow() + timedelta(seconds=settings.login_lockout_seconds)
            await session.execute(
                update(CustomerLogin).where(row).values(failed_logins=0, locked_until=until)
            )
