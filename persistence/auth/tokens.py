"""Single-use tokens: issued on /authenticate and after every accepted token, claimed atomically. A request
reads its token, its vendor and its named agent in one statement (`present`) and claims the token in the
transaction that commits its work (`claim`): of two requests presenting one token, the one whose claim
commits goes on, and the other's writes roll back with its failed claim."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple, cast

import sqlalchemy
from sqlalchemy import bindparam, delete, insert, update
from sqlmodel import col

from models.clock import utcnow
from models.errors import TokenRefused
from models.tables.auth import ApiToken
from persistence.agents import AGENT_COLUMNS, AgentFields, AgentRef
from persistence.core import table
from persistence.transaction import DbSession, Transaction


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
_TOKENS, _VENDORS, _AGENTS = table("api_token"), table("vendor"), table("agent")
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
        _AGENTS,
        sqlalchemy.and_(_AGENTS.c.username == bindparam("username"), _AGENTS.c.vendor_id == _TOKENS.c.vendor_id),
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


async def store(transaction: Transaction, token: str, owner: TokenOwner, ttl_seconds: int) -> None:
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


async def issue(transaction: Transaction, owner: TokenOwner, ttl_seconds: int) -> str:
    """A new token for the owner, stored in the transaction."""
    token = new_token()
    await store(transaction, token, owner, ttl_seconds)
    return token


async def present(transaction: Transaction, token: str | None, *, username: str | None) -> Presented:
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


async def claim(transaction: Transaction, hashed: str) -> None:
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


async def revoke(session: DbSession, api_user_id: int, *, keep: str | None = None) -> None:
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


async def drop_all(session: DbSession, api_user_id: int) -> None:
    """Deletes every token of the API user (it was disabled): they then answer as an unknown token does."""
    await session.execute(delete(ApiToken).where(col(ApiToken.api_user_id) == api_user_id))


async def drop_session(session: DbSession, login_log_id: int | None) -> None:
    """Deletes the tokens of one session (logout): those chained from its /authenticate."""
    if login_log_id is not None:
        await session.execute(delete(ApiToken).where(col(ApiToken.login_log_id) == login_log_id))
