"""The engine and the Database every process opens once: nothing connects at import time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

# Every table must be mapped before the first flush resolves foreign keys, whatever the process uses.
import models.tables.all  # noqa: F401
from models.settings import Settings
from persistence.uow import UnitOfWork


def make_engine(settings: Settings, url: str | None = None) -> AsyncEngine:
    url = url or settings.db_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        # A writer waits for the lock instead of failing at once; WAL lets readers run beside it.
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=20,
        connect_args={"timeout": settings.database.connect_timeout_seconds},
    )  # fmt: skip


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # In WAL mode NORMAL cannot corrupt the database; it syncs at checkpoints instead of every commit.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


class Database:
    """Sessions over one engine. Autobegin is off: every statement runs inside an explicit, short
    transaction, so no connection (or SQLite lock) is held while a caller waits on something else."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._sessions = async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False, autobegin=False)

    @classmethod
    def open(cls, settings: Settings, url: str | None = None) -> Database:
        return cls(make_engine(settings, url))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """One unit of work on a session of its own: committed on success, rolled back on any exception."""
        async with self._sessions() as session, session.begin():
            yield session

    def unit_of_work(self) -> UnitOfWork:
        """One session for a whole request (see UnitOfWork)."""
        return UnitOfWork(self._sessions)

    async def dispose(self) -> None:
        await self.engine.dispose()
