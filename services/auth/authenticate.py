"""`POST /authenticate`: checks API-user credentials with throttling, and opens the login-log entry the
session works under; answers the first token of the session and the entry's OTP."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_
from sqlmodel import col

from models.envelope import MsgCode
from models.errors import LineupError
from models.passwords import verify_secret_async
from models.requests.auth import AuthenticateRequest
from models.settings import Settings
from models.tables.auth import ApiUser, LoginLog
from persistence.auth import tokens
from persistence.auth.logins import LOCKED, Throttle, active_api_user, claim_login, settle_attempt, settle_login
from persistence.uow import UnitOfWork

INVALID = "Invalid credentials!!"


@dataclass(frozen=True)
class Login:
    token: str
    otp: str


def invalid(*errors: str, rest_status: int = 401) -> LineupError:
    return LineupError(MsgCode.TOKEN, INVALID, list(errors) or None, rest_status=rest_status)


async def authenticate(*, form: AuthenticateRequest, ip: str | None, uow: UnitOfWork, settings: Settings) -> Login:
    """The session's first token and login-log OTP, or `Invalid credentials!!`."""
    if missing := form.missing():
        raise invalid(*missing)
    async with uow.transaction() as session:
        user = await active_api_user(session, vendor_code=str(form.vendor_id), username=str(form.username))
    throttle = Throttle.of(settings)
    # Claimed before the secrets are verified: parallel guesses cannot outrun the lockout.
    if user is not None and not await claim_login(uow, ApiUser, _row(user), throttle):
        raise invalid(LOCKED, rest_status=429)
    # Both secrets are always verified, so a wrong PIN costs as much time as a wrong password.
    password_ok = await verify_secret_async(user.password_hash if user else None, str(form.password))
    pin_ok = await verify_secret_async(user.pin_hash if user else None, str(form.pin))
    if user is None:
        raise invalid()
    if not (password_ok and pin_ok):
        await settle_login(uow, ApiUser, _row(user), throttle, ok=False)
        raise invalid()
    return await _open_session(uow, settings, user, ip)


def _row(user: ApiUser) -> Any:
    return col(ApiUser.id) == user.id


async def _open_session(uow: UnitOfWork, settings: Settings, user: ApiUser, ip: str | None) -> Login:
    assert user.id is not None
    # No leading zero: channels send the OTP back as a JSON number, which would drop it.
    otp = str(100_000 + secrets.randbelow(900_000))
    async with uow.transaction() as session:
        # The success settles the attempt and clears the count; the row stays locked until commit, so a
        # `lineup api-user disable` either came first (no row: refused) or comes after and drops this session's
        # token with the rest (whose attempt then stays pending until the throttle's stale bound frees it).
        active = and_(_row(user), col(ApiUser.active))
        if not await settle_attempt(session, ApiUser, active, Throttle.of(settings), ok=True):
            raise invalid()
        entry = LoginLog(vendor_id=user.vendor_id, api_user_id=user.id, otp=otp, ip_address=ip)
        session.add(entry)
        await session.flush()
        owner = tokens.TokenOwner(vendor_id=user.vendor_id, api_user_id=user.id, login_log_id=entry.id)
        token = await tokens.issue(session, owner, settings.auth.token_ttl_seconds)
    return Login(token=token, otp=otp)
