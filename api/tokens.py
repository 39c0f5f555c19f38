"""Single-use tokens: issued on /authenticate and after every accepted token, consumed atomically."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from api.errors import LineupError
from models.db import utcnow
from models.envelope import MsgCode
from models.tables.session import ApiToken


@dataclass(frozen=True)
class TokenOwner:
    vendor_id: int
    api_user_id: int
    login_log_id: int | None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def issue(session: AsyncSession, owner: TokenOwner, ttl_seconds: int) -> str:
    token = secrets.token_urlsafe(32)
    now = utcnow()
    session.add(
        ApiToken(
            token_hash=digest(token),
            vendor_id=owner.vendor_id,
            api_user_id=owner.api_user_id,
            login_log_id=owner.login_log_id,
            issued_at=now,
            expires_at=now + timedelta(seconds=ttl_seconds),
        )
    )
    return token


async def consume(session: AsyncSession, token: str | None) -> TokenOwner:
    """Marks the token used. The conditional UPDATE is the whole race: one caller matches the row."""
    if not token:
        raise LineupError(MsgCode.TOKEN, "Invalid Token")
    hashed, now = digest(token), utcnow()
    claimed = await session.execute(
        update(ApiToken)
        .where(col(ApiToken.token_hash) == hashed, col(ApiToken.used_at).is_(None), col(ApiToken.expires_at) > now)
        .values(used_at=now)
        .returning(ApiToken.vendor_id, ApiToken.api_user_id, ApiToken.login_log_id)
    )
    row = claimed.first()
    if row is not None:
        return TokenOwner(vendor_id=row[0], api_user_id=row[1], login_log_id=row[2])
    found = (await session.exec(select(ApiToken).where(ApiToken.token_hash == hashed))).first()
    if found is None:
        raise LineupError(MsgCode.TOKEN, "Invalid Token")
    if found.used_at is not None:
        raise LineupError(MsgCode.TOKEN, "Token already used")
    raise LineupError(MsgCode.TOKEN, "Token expire")


async def revoke(session: AsyncSession, api_user_id: int, *, keep: str | None = None) -> None:
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
