"""The token's one query on SQLite and PostgreSQL (issue 35, item 2; decisions.md "Who calls"): a token of an agent's
own API credentials reads that agent whatever name is asked for; a token of the vendor's API user reads the agent
named, among the vendor's own, or none."""

from __future__ import annotations

import secrets

from sqlmodel import col, select

from cli.accounts import AgentSpec, add_agent
from models import auth
from models.auth import ApiUser
from models.db import Database


async def token_of(db: Database, username: str) -> str:
    async with db.transaction() as transaction:
        user = (await transaction.exec(select(ApiUser).where(col(ApiUser.username) == username))).one()
        assert user.id is not None
        owner = auth.TokenOwner(vendor_id=user.vendor_id, api_user_id=user.id, login_log_id=None)
        return await auth.issue(transaction, owner, 900)


async def presented(db: Database, token: str, username: str | None) -> tuple[str | None, bool]:
    """The agent the token's query reads for `username`, and whether the token is an agent's own."""
    async with db.transaction(write=False) as transaction:
        found = await auth.present(transaction, token, username=username)
    return (found.agent.username if found.agent else None), found.bound


async def test_an_agents_own_token_reads_its_agent_whatever_name_is_asked(db):
    username = f"own.{secrets.token_hex(3)}"
    assert await add_agent(db, AgentSpec("DEMO", username, "pw-123456", pin="2468")) is None
    token = await token_of(db, username)
    for asked in (username, "demo.support", "other.agent", None):
        assert await presented(db, token, asked) == (username, True)


async def test_a_vendor_token_reads_the_named_agent_of_its_vendor_only(db):
    token = await token_of(db, "demo.api")
    assert await presented(db, token, "demo.support") == ("demo.support", False)
    assert await presented(db, token, "other.agent") == (None, False)  # OTHER's
    assert await presented(db, token, None) == (None, False)
