"""Single-use tokens: issued on /authenticate and after every accepted token, consumed atomically."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import bindparam, delete, insert, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.clock import utcnow
from models.errors import TokenRefused
from models.tables.auth import ApiToken


@dataclass(frozen=True)
class TokenOwner:
    vendor_id: int
    api_user_id: int
    login_log_id: int | None


# Built once: every authenticated call runs both, and building a statement costs more than executing it.
_ISSUE = insert(ApiToken)
_CLAIM = (
    update(ApiToken)
    .where(
        col(ApiToken.token_hash) == bindparam("hashed"),
        col(ApiToken.used_at).is_(None),
        col(ApiToken.expires_at) > bindparam("now"),
    )
    .values(used_at=bindparam("now"))
    .returning(col(ApiToken.vendor_id), col(ApiToken.api_user_id), col(ApiToken.login_log_id))
)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def issue(session: AsyncSession, owner: TokenOwner, ttl_seconds: int) -> str:
    token = secrets.token_urlsafe(32)
    now = utcnow()
    # A Core INSERT: the row is never read back in this session, so the ORM's unit of work is pure cost.
    await session.execute(
        _ISSUE,
        {
            "token_hash": digest(token), "vendor_id": owner.vendor_id, "api_user_id": owner.api_user_id,
            "login_log_id": owner.login_log_id, "issued_at": now, "expires_at": now + timedelta(seconds=ttl_seconds),
        },
    )  # fmt: skip
    return token


async def consume(session: AsyncSession, token: str | None) -> TokenOwner:
    """Marks the token used. The conditional UPDATE is the whole race: one caller matches the row."""
    if not token:
        raise TokenRefused("missing", "Invalid Token")
    hashed, now = digest(token), utcnow()
    row = (await session.execute(_CLAIM, {"hashed": hashed, "now": now})).first()
    if row is not None:
        return TokenOwner(vendor_id=row[0], api_user_id=row[1], login_log_id=row[2])
    found = (await session.exec(select(ApiToken).where(ApiToken.token_hash == hashed))).first()
    if found is None:
        raise TokenRefused("unknown", "Invalid Token")
    if found.used_at is not None:
        raise TokenRefused("used", "Token already used")
    raise TokenRefused("expired", "Token expire")


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


async def drop_all(session: AsyncSession, api_user_id: int) -> None:
    """Deletes every token of the API user (it was disabled): they then answer as an unknown token does."""
    await session.execute(delete(ApiToken).where(col(ApiToken.api_user_id) == api_user_id))


async def drop_session(session: AsyncSession, login_log_id: int | None, token: str | None) -> None:
    """Deletes the tokens of one session (logout): those chained from its /authenticate, and `token`."""
    if login_log_id is not None:
        await session.execute(delete(ApiToken).where(col(ApiToken.login_log_id) == login_log_id))
    if token is not None:
        await session.execute(delete(ApiToken).where(col(ApiToken.token_hash) == digest(token)))
