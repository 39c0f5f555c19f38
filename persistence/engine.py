"""The engine and the Database every process opens once: nothing connects at import time."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import event, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DisconnectionError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool, ConnectionPoolEntry, PoolProxiedConnection
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
        return create_async_engine(make_url(url).set(drivername="sqlite+lineup"), poolclass=AsyncAdaptedQueuePool)
    # A fixed pool: connections opened past it would be closed again as soon as the queue of idle ones is full,
    # and under steady load that means a new connection (TCP, TLS, authentication) for many transactions.
    engine = create_async_engine(
        url,
        pool_size=settings.database.pool_size,
        max_overflow=0,
        connect_args={"timeout": settings.database.connect_timeout_seconds},
    )
    _ping_when_idle(engine, settings.database.ping_after_idle_seconds)
    return engine


def _ping_when_idle(engine: AsyncEngine, idle_seconds: float) -> None:
    """A connection back from a while in the pool is pinged before use; one just used is not. SQLAlchemy's
    pre-ping would cost every request three round trips (BEGIN, the ping, ROLLBACK) to catch a server restart
    that the first request after a quiet spell meets; a busy pool's connections were just proven alive."""
    pool = engine.sync_engine.pool

    @event.listens_for(pool, "checkin")
    def _returned(_dbapi: DBAPIConnection | None, record: ConnectionPoolEntry) -> None:
        record.info[_RETURNED] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def _check(dbapi: DBAPIConnection, record: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
        returned = record.info.get(_RETURNED)
        if returned is None or time.monotonic() - returned < idle_seconds:
            return  # just opened, or just used
        try:
            dbapi.ping()  # asyncpg's adapted connection
        except Exception as problem:
            raise DisconnectionError(str(problem)) from problem  # the pool replaces it and checks out again


_RETURNED = "lineup.returned_at"


class Database:
    """Transactions over one engine, each on a connection of its own for as long as it lasts, so no transaction
    and no SQLite lock is held while a caller waits on something else. An ORM session works inside a transaction
    (`session_on`); it never begins or commits one itself. On SQLite a process writes one transaction at a time
    (`turn`), so its one connection stays with it from turn to turn instead of going back to the pool."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        # SQLite has one writer: a process takes its turns in order instead of meeting its own lock.
        self._turns = asyncio.Lock() if self.sqlite else None
        self._holder: asyncio.Task[object] | None = None
        self._idle: AsyncConnection | None = None  # SQLite's connection between turns

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

    async def connect(self) -> AsyncConnection:
        """A connection with its transaction begun (call within `turn()`): on SQLite, one that holds the write
        lock, waited for without blocking the event loop."""
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + LOCK_WAIT_SECONDS, FIRST_PAUSE
        while True:
            connection, self._idle = self._idle or await self.engine.connect(), None
            try:
                await connection.begin()  # the BEGIN itself
                return connection
            except BaseException as problem:
                await self.checkin(connection)
                locked = isinstance(problem, OperationalError) and self.sqlite and sqlite.is_locked(problem)
                if not locked or loop.time() >= deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    async def checkin(self, connection: AsyncConnection) -> None:
        """Takes back a connection whose transaction has ended."""
        if self.sqlite and self._idle is None and not connection.invalidated and not connection.in_transaction():
            self._idle = connection
        else:
            await connection.close()

    @staticmethod
    def session_on(connection: AsyncConnection) -> AsyncSession:
        """An ORM session for `connection`'s transaction: it joins it when begun, flushes there and leaves the
        commit to the connection's owner. It never begins a transaction by itself (nothing is held between
        transactions, and SQLite's lock is only taken in turn)."""
        return AsyncSession(
            bind=connection, expire_on_commit=False, autobegin=False, join_transaction_mode="rollback_only"
        )

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """One unit of work on a session of its own: committed on success, rolled back on any exception."""
        async with self.turn():
            connection = await self.connect()
            session = self.session_on(connection)
            try:
                await session.begin()
                yield session
                await session.commit()  # flushes and ends its part; the connection commits below
                await connection.commit()
            except BaseException:
                with contextlib.suppress(Exception):  # the original failure is the one to report
                    await connection.rollback()
                raise
            finally:
                await session.close()
                await self.checkin(connection)

    async def dispose(self) -> None:
        idle, self._idle = self._idle, None
        if idle is not None:
            await idle.close()
        await self.engine.dispose()
