"""The engine and the Database every process opens once: nothing connects at import time."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import event, make_url
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool
from sqlmodel.ext.asyncio.session import AsyncSession

# Every table must be mapped before the first flush resolves foreign keys, whatever the process uses.
import models.tables.all  # noqa: F401
from models.settings import Settings
from persistence import sqlite

# How long a transaction waits for the write lock another process holds (a worker's write takes milliseconds;
# this is the bound for one stuck behind a long migration or a backup).
LOCK_WAIT_SECONDS = 30.0
FIRST_PAUSE, LONGEST_PAUSE = 0.0005, 0.02


def make_engine(settings: Settings, url: str | None = None) -> AsyncEngine:
    url = url or settings.db_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        path = make_url(url).database or ""
        engine = create_async_engine(url, async_creator=sqlite.creator(path), poolclass=AsyncAdaptedQueuePool)
        event.listen(engine.sync_engine, "begin", _begin_immediate)
        return engine
    return create_async_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=20,
        connect_args={"timeout": settings.database.connect_timeout_seconds},
    )


def _begin_immediate(connection: Connection) -> None:
    # The write lock is taken at the start: a deferred transaction that reads and then writes could find the
    # database changed under it and fail at its first write, after work the caller cannot redo.
    connection.exec_driver_sql("BEGIN IMMEDIATE")


class Database:
    """Sessions over one engine, every statement inside an explicit, short transaction (autobegin is off), so
    no connection and no SQLite lock is held while a caller waits on something else."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self._sessions = async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False, autobegin=False)
        # SQLite has one writer: a process takes its turns in order instead of meeting its own lock.
        self._turns = asyncio.Lock() if self.sqlite else None
        self._holder: asyncio.Task[object] | None = None

    @classmethod
    def open(cls, settings: Settings, url: str | None = None) -> Database:
        return cls(make_engine(settings, url))

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """This process's turn to write (SQLite); PostgreSQL needs none."""
        if self._turns is None:
            yield
            return
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            # It would wait for itself forever: a transaction must finish before the same task opens another.
            raise RuntimeError("a transaction was opened inside another one of the same task")
        async with self._turns:
            self._holder = task
            try:
                yield
            finally:
                self._holder = None

    def session(self) -> AsyncSession:
        return self._sessions()

    async def begin(self, session: AsyncSession) -> None:
        """Begins a transaction on `session` (call within `turn()`): on SQLite, one that holds the write lock,
        waited for without blocking the event loop."""
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + LOCK_WAIT_SECONDS, FIRST_PAUSE
        while True:
            await session.begin()
            try:
                await session.connection()  # the BEGIN itself
                return
            except OperationalError as problem:
                await session.rollback()
                if not (self.sqlite and sqlite.is_locked(problem)) or loop.time() >= deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """One unit of work on a session of its own: committed on success, rolled back on any exception."""
        async with self.turn():
            session = self.session()
            try:
                await self.begin(session)
                yield session
                await session.commit()
            except BaseException:
                with contextlib.suppress(Exception):  # the original failure is the one to report
                    await session.rollback()
                raise
            finally:
                await session.close()

    async def dispose(self) -> None:
        await self.engine.dispose()
