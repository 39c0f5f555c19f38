"""Migration 0023 on SQLite and PostgreSQL (issue 35, item 2): an API user named as one of its own vendor's agents
(what `agent create --pin` made) is bound to that agent, and no other is; every support or admin agent without an
API password is named in the migration's log, a line each with its vendor; a downgrade drops the binding."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from bench.stack_db import tool_engine
from models.db import alembic_config
from tests.support.databases import database_at

VENDOR = "INSERT INTO vendor (id, code, name, active, created_at) VALUES (:id, :code, :code, true, :at)"
AGENT = (
    "INSERT INTO agent (id, vendor_id, username, roles, active, password_hash, requires_api_password, "
    "api_password_hash, created_at) VALUES (:id, :vendor, :name, :roles, true, 'h', :requires, :hashed, :at)"
)
API_USER = (
    "INSERT INTO api_user (id, vendor_id, username, password_hash, pin_hash, active, failed_logins, created_at) "
    "VALUES (:id, :vendor, :name, 'h', 'h', true, 0, :at)"
)
AT = datetime(2026, 11, 27, 10)
AGENTS = (  # id, vendor, username, roles, API password
    (1, 1, "ewebsiteapi", "agent,payments", None),  # payments needs none: never named
    (2, 1, "clerk", "agent,support", None),
    (3, 2, "boss", "admin", None),
    (4, 2, "guarded", "agent,support", "argon2-hash"),
    (5, 2, "ewebsiteapi", "agent", None),
)
API_USERS = (  # id, vendor, username
    (1, 1, "webshop.api"),  # the vendor's own
    (2, 1, "clerk"),  # clerk's own (`agent create --pin`)
    (3, 2, "ewebsiteapi"),  # STORE's ewebsiteapi's own, not WEBSHOP's
    (4, 2, "clerk"),  # STORE has no agent clerk: WEBSHOP's is not its
)


async def run(url: str, statement: str, rows: Sequence[Mapping[str, Any]] = ()) -> list[tuple[object, ...]]:
    engine = tool_engine(url)
    try:
        async with engine.begin() as connection:
            result = await connection.execute(text(statement), list(rows) or {})
            return [tuple(row) for row in result.fetchall()] if result.returns_rows else []
    finally:
        await engine.dispose()


async def test_0023_binds_each_agents_own_api_user_and_names_support_agents_without_an_api_password(
    engine_name, tmp_path, caplog
):
    async with database_at("0022", engine_name, tmp_path) as url:
        await run(url, VENDOR, [{"id": 1, "code": "WEBSHOP", "at": AT}, {"id": 2, "code": "STORE", "at": AT}])
        agents = [
            {"id": i, "vendor": v, "name": n, "roles": r, "requires": h is not None, "hashed": h, "at": AT}
            for i, v, n, r, h in AGENTS
        ]
        await run(url, AGENT, agents)
        await run(url, API_USER, [{"id": i, "vendor": v, "name": n, "at": AT} for i, v, n in API_USERS])

        with caplog.at_level(logging.INFO, logger="alembic.runtime.migration"):
            await asyncio.to_thread(command.upgrade, alembic_config(url), "0023")

        bound = await run(url, "SELECT id, agent_id FROM api_user ORDER BY id")
        assert bound == [(1, None), (2, 2), (3, 5), (4, None)]
        named = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
        assert named == [
            "agent boss of vendor STORE has the admin role without an API password: give it one with `lineup agent "
            "set-roles --vendor-id STORE --username boss --role … --require-api-password …`",
            "agent clerk of vendor WEBSHOP has the support role without an API password: give it one with `lineup "
            "agent set-roles --vendor-id WEBSHOP --username clerk --role … --require-api-password …`",
        ]
        assert "2 API user(s) linked to the agent of their name and vendor" in caplog.text

        await asyncio.to_thread(command.downgrade, alembic_config(url), "0022")
        with pytest.raises(DBAPIError, match="agent_id"):
            await run(url, "SELECT agent_id FROM api_user")
