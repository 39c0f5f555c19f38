"""Single-use tokens: issued on /authenticate and after every accepted token, claimed atomically. A request
reads its token, its vendor and its named agent in one statement (`present`) and claims the token in the
transaction that commits its work (`claim`): of two requests presenting one token, the one whose claim
commits goes on, and the other's writes roll back with its failed claim."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

import sqlalchemy
from sqlalchemy import bindparam, delete, insert, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.clock import utcnow
from models.errors import TokenRefused
from models.tables.agents import Agent
from models.tables.auth import ApiToken, Vendor
from persistence.agents import AGENT_COLUMNS, AgentRef


@dataclass(frozen=True)
class TokenOwner:
    vendor_id: int
    api_user_id: int
    login_log_id: int | None


@dataclass(frozen=True)
class Presented:
    """The token a request presents, found unused and unexpired, with its vendor and the agent the request names
    (of any vendor, so the caller can tell "unknown" from "another company's")."""

    hashed: str
    owner: TokenOwner
    vendor_code: str
    agent: AgentRef | None


# Built once: every authenticated call runs these, and building a statement costs more than executing it.
_ISSUE = insert(ApiToken)
# The token's own columns are labelled: the agent's columns beside them have a vendor_id of their own.
_PRESENT: sqlalchemy.Select[*tuple[object, ...]] = (
    sqlalchemy.select(
        col(ApiToken.vendor_id).label("token_vendor_id"),
        col(ApiToken.api_user_id).label("token_api_user_id"),
        col(ApiToken.login_log_id).label("token_login_log_id"),
        col(ApiToken.used_at).label("token_used_at"),
        col(ApiToken.expires_at).label("token_expires_at"),
        col(Vendor.code).label("vendor_code"),
        *AGENT_COLUMNS,
    )
    .select_from(ApiToken)
    .join(Vendor, col(Vendor.id) == col(ApiToken.vendor_id))
    .outerjoin(Agent, col(Agent.username) == bindparam("username"))
    .where(col(ApiToken.token_hash) == bindparam("hashed"))
)
_CLAIM = (
    update(ApiToken)
    .where(
        col(ApiToken.token_hash) == bindparam("hashed"),
        col(ApiToken.used_at).is_(None),
        col(ApiToken.expires_at) > bindparam("now"),
    )
    .values(used_at=bindparam("now"))
)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


async def store(session: AsyncSession, token: str, owner: TokenOwner, ttl_seconds: int) -> None:
    """Stores `token` (its hash) as the owner's next single-use token."""
    now = utcnow()
    # A Core INSERT: the row is never read back in this session, so the ORM's unit of work is pure cost.
    await session.execute(
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


async def issue(session: AsyncSession, owner: TokenOwner, ttl_seconds: int) -> str:
    """A new token for the owner, stored."""
    token = new_token()
    await store(session, token, owner, ttl_seconds)
    return token


async def present(session: AsyncSession, token: str | None, *, username: str | None) -> Presented:
    """The presented token, still unused and unexpired, with its vendor and the named agent; else the refusal."""
    if not token:
        raise TokenRefused("missing", "Invalid Token")
    hashed = digest(token)
    row = (await session.execute(_PRESENT, {"hashed": hashed, "username": username})).first()
    if row is None:
        raise TokenRefused("unknown", "Invalid Token")
    if row.token_used_at is not None:
        raise TokenRefused("used", "Token already used")
    if row.token_expires_at <= utcnow():
        raise TokenRefused("expired", "Token expire")
    owner = TokenOwner(row.token_vendor_id, row.token_api_user_id, row.token_login_log_id)
    return Presented(hashed, owner, row.vendor_code, AgentRef.of(row) if row.id is not None else None)


async def claim(session: AsyncSession, hashed: str) -> None:
    """Marks the presented token used. The conditional UPDATE is the whole race: one request matches the row."""
    claimed = await session.execute(_CLAIM, {"hashed": hashed, "now": utcnow()})
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        # Lost to a request presenting the same token, or it expired, or its session ended, since `present`.
        found = (
            await session.execute(select(ApiToken.id, ApiToken.used_at).where(ApiToken.token_hash == hashed))
        ).first()
        if found is None:
            raise TokenRefused("unknown", "Invalid Token")
        raise (
            TokenRefused("expired", "Token expire")
            if found.used_at is None
            else TokenRefused("used", "Token already used")
        )


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


async def drop_session(session: AsyncSession, login_log_id: int | None) -> None:
    """Deletes the tokens of one session (logout): those chained from its /authenticate."""
    if login_log_id is not None:
        await session.execute(delete(ApiToken).where(col(ApiToken.login_log_id) == login_log_id))
