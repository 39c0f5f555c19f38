"""Migration 0016 on SQLite and PostgreSQL: every agent the database had is kept, with its
id and roles; afterwards a username is unique within its vendor only; and a downgrade refuses while two vendors
share a name (which one gives it up is a person's call)."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from bench.stack_db import tool_engine
from models.db import alembic_config
from tests.support.databases import database_at

VENDORS = "INSERT INTO vendor (id, code, name, active, created_at) VALUES (:id, :code, :code, true, :at)"
AGENT = (
    "INSERT INTO agent (id, vendor_id, username, roles, active, password_hash, requires_api_password, created_at) "
    "VALUES (:id, :vendor, :name, :roles, true, 'h', false, :at)"
)
AT = datetime(2026, 11, 20, 10)


async def run(url: str, tmp_path, statement: str, **values: object) -> list[tuple[object, ...]]:
    engine = tool_engine(url)
    try:
        async with engine.begin() as connection:
            result = await connection.execute(text(statement), values)
            return [tuple(row) for row in result.fetchall()] if result.returns_rows else []
    finally:
        await engine.dispose()


async def test_0016_keeps_every_agent_and_makes_usernames_unique_per_vendor(engine_name, tmp_path):
    async with database_at("0015", engine_name, tmp_path) as url:
        for vendor_id, code in ((1, "WEBSHOP"), (2, "STORE")):
            await run(url, tmp_path, VENDORS, id=vendor_id, code=code, at=AT)
        for agent_id, vendor_id, name, roles in ((1, 1, "ewebsiteapi", "agent"), (2, 2, "clerk", "agent,support")):
            await run(url, tmp_path, AGENT, id=agent_id, vendor=vendor_id, name=name, roles=roles, at=AT)

        await asyncio.to_thread(command.upgrade, alembic_config(url), "0016")

        kept = await run(url, tmp_path, "SELECT id, vendor_id, username, roles FROM agent ORDER BY id")
        assert kept == [(1, 1, "ewebsiteapi", "agent"), (2, 2, "clerk", "agent,support")]
        # Another vendor may now have the name; the same vendor still may not have it twice.
        await run(url, tmp_path, AGENT, id=3, vendor=2, name="ewebsiteapi", roles="agent", at=AT)
        with pytest.raises(IntegrityError):
            await run(url, tmp_path, AGENT, id=4, vendor=1, name="ewebsiteapi", roles="agent", at=AT)

        with pytest.raises(RuntimeError, match="1 agent username"):
            await asyncio.to_thread(command.downgrade, alembic_config(url), "0015")
        await run(url, tmp_path, "DELETE FROM agent WHERE id = 3")
        await asyncio.to_thread(command.downgrade, alembic_config(url), "0015")
        with pytest.raises(IntegrityError):  # unique across vendors again
            await run(url, tmp_path, AGENT, id=5, vendor=2, name="ewebsiteapi", roles="agent", at=AT)
