"""The engine's connections: PostgreSQL's pooled connections checked after idling, so a server that dropped
them (a restart, a failover, an idle timeout) costs no request an error."""

from __future__ import annotations

import asyncpg
import pytest
from sqlalchemy import make_url, text
from sqlalchemy.exc import DBAPIError

from models.db import Database
from tests.support.app import make_settings


async def backend_pid(db: Database) -> int:
    async with db.transaction() as session:
        pid: int = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
    return pid


async def terminate(url: str, pid: int) -> None:
    """Ends one server process, as a restart or an idle timeout would."""
    admin = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(hide_password=False))
    try:
        await admin.execute("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()


@pytest.fixture
async def idle_pinged(postgres_url: str, tmp_path):
    db = Database(make_settings(tmp_path, postgres_url, db_ping_after_idle_seconds=0))
    yield db
    await db.dispose()


async def test_a_connection_dropped_while_idle_is_replaced_before_use(idle_pinged, postgres_url):
    first = await backend_pid(idle_pinged)
    await terminate(postgres_url, first)
    assert await backend_pid(idle_pinged) != first  # answered, on a new connection


async def test_a_connection_just_used_is_not_pinged(postgres_url, tmp_path):
    """The other side of the trade: within the idle window the pool trusts the connection, so one dropped
    right after use fails its next statement (and the pool replaces it after)."""
    db = Database(make_settings(tmp_path, postgres_url, db_ping_after_idle_seconds=3600))
    try:
        await terminate(postgres_url, await backend_pid(db))
        with pytest.raises(DBAPIError):
            await backend_pid(db)
        await backend_pid(db)  # the dropped connection was discarded
    finally:
        await db.dispose()
