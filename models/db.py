"""Engine and session helpers. Nothing connects at import time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from models.settings import Settings


def utcnow() -> datetime:
    """Aware UTC; SQLModel's UTCDateTime columns store it the same way on SQLite and PostgreSQL."""
    return datetime.now(UTC)


def make_engine(settings: Settings, url: str | None = None) -> AsyncEngine:
    # Every table must be mapped before the first flush resolves foreign keys, whatever the process
    # imported (a worker imports only some tables). Imported here: the tables themselves import this module.
    import models.tables.all  # noqa: F401

    url = url or settings.db_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        # A writer waits for the lock instead of failing at once; WAL lets readers run beside it.
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # In WAL mode NORMAL cannot corrupt the database; it syncs at checkpoints instead of every commit.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)


@asynccontextmanager
async def transaction(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """One unit of work: committed on success, rolled back on any exception."""
    async with sessions() as session, session.begin():
        yield session
