"""The engine and the Database every process opens once: nothing connects at import time.

SQLite: SQLAlchemy's synchronous engine on the stdlib driver, run inline (persistence.transaction says why). What
could block is waiting for the write lock, so no statement waits for it: `busy_timeout` is 0, every transaction
begins IMMEDIATE (SQLAlchemy's documented recipe: the driver's own transactions off, BEGIN emitted on the
engine's `begin` event), and a locked begin is retried with an asynchronous pause. One process takes its write
transactions in turn (an asyncio lock) and keeps its one connection from turn to turn.

PostgreSQL: the asyncio engine on asyncpg with a fixed pool; a connection back from a while in the pool is pinged
(the dialect's own ping) before use, one just used is not."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import Connection, Engine, create_engine, event, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DisconnectionError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

# Every table must be mapped before the first flush resolves foreign keys, whatever the process uses.
import models.tables.all  # noqa: F401
from models.settings import Settings
from persistence.transaction import AsyncTransaction, DbSession, InlineTransaction, Transaction

# How long a transaction waits for the write lock another process holds (a worker's write takes milliseconds;
# this is the bound for one stuck behind a long migration or a backup).
LOCK_WAIT_SECONDS = 30.0
FIRST_PAUSE, LONGEST_PAUSE = 0.0005, 0.02
PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    # In WAL mode NORMAL cannot corrupt the database; it syncs at checkpoints instead of every commit.
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=0",
)
_RETURNED = "lineup.returned_at"


def sqlite_engine(url: str, *, foreign_keys: bool = True) -> Engine:
    """The stdlib driver whatever driver the URL names (`sqlite+aiosqlite://` is read as `sqlite://`).
    Migrations run without foreign keys: SQLite alters a table by copying it, which a key would refuse."""
    engine = create_engine(make_url(url).set(drivername="sqlite+pysqlite"))
    pragmas = PRAGMAS if foreign_keys else tuple(pragma for pragma in PRAGMAS if "foreign_keys" not in pragma)

    @event.listens_for(engine, "connect")
    def _opened(dbapi: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        dbapi.isolation_level = None  # the transactions are the BEGINs below
        cursor = dbapi.cursor()
        for pragma in pragmas:
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        # The write lock at the start: a deferred transaction that reads and then writes could find the database
        # changed under it and fail at its first write, after work the caller cannot redo.
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def postgres_engine(url: str, settings: Settings) -> AsyncEngine:
    """A fixed pool: connections past it would be closed again as soon as the queue of idle ones is full, and
    under steady load that means a new connection (TCP, TLS, authentication) for many transactions."""
    engine = create_async_engine(
        make_url(url).set(drivername="postgresql+asyncpg"),
        pool_size=settings.database.pool_size,
        max_overflow=0,
        connect_args={"timeout": settings.database.connect_timeout_seconds},
    )
    _ping_when_idle(engine, settings.database.ping_after_idle_seconds)
    return engine


def _ping_when_idle(engine: AsyncEngine, idle_seconds: float) -> None:
    """SQLAlchemy's pre-ping would cost every request three round trips (BEGIN, the ping, ROLLBACK) to catch a
    server restart that the first request after a quiet spell meets; a busy pool's connections were just proven
    alive. A connection that fails its ping is replaced, and one found dead in use is invalidated by SQLAlchemy."""
    pool, dialect = engine.sync_engine.pool, engine.dialect

    @event.listens_for(pool, "checkin")
    def _returned(_dbapi: DBAPIConnection | None, record: ConnectionPoolEntry) -> None:
        record.info[_RETURNED] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def _check(dbapi: DBAPIConnection, record: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
        returned = record.info.get(_RETURNED)
        if returned is None or time.monotonic() - returned < idle_seconds:
            return  # just opened, or just used
        try:
            dialect.do_ping(dbapi)
        except Exception as problem:
            raise DisconnectionError(str(problem)) from problem  # the pool replaces it and checks out again


class Database:
    """Transactions over one engine, each on a connection of its own for as long as it lasts, so no transaction
    and no SQLite lock is held while a caller waits on something else."""

    def __init__(self, settings: Settings, url: str | None = None) -> None:
        url = url or settings.db_url
        self.sqlite = url.startswith("sqlite")
        if self.sqlite:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.engine: Engine | None = sqlite_engine(url) if self.sqlite else None
        self.async_engine: AsyncEngine | None = None if self.sqlite else postgres_engine(url, settings)
        # SQLite has one writer: a process takes its turns in order instead of meeting its own lock.
        self._turns = asyncio.Lock() if self.sqlite else None
        self._holder: asyncio.Task[object] | None = None
        self._idle: InlineTransaction | None = None  # SQLite's connection between turns

    @classmethod
    def open(cls, settings: Settings, url: str | None = None) -> Database:
        return cls(settings, url)

    @property
    def dialect(self) -> str:
        return "sqlite" if self.sqlite else "postgresql"

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

    async def begin(self) -> Transaction:
        """A transaction begun (call within `turn()`): on SQLite, one that holds the write lock, waited for
        without blocking the event loop."""
        if self.async_engine is not None:
            connection = await self.async_engine.connect()
            try:
                await connection.begin()
            except BaseException:
                await connection.close()
                raise
            return AsyncTransaction(connection)
        assert self.engine is not None
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + LOCK_WAIT_SECONDS, FIRST_PAUSE
        while True:
            inline, self._idle = self._idle or InlineTransaction(self.engine.connect()), None
            try:
                inline.connection.begin()
                return inline
            except OperationalError as problem:
                await inline.close()
                if not is_locked(problem) or loop.time() >= deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    async def end(self, transaction: Transaction) -> None:
        """Takes back a transaction that has committed or rolled back."""
        if isinstance(transaction, InlineTransaction) and self._idle is None and transaction.reusable:
            await transaction.finish()
            self._idle = transaction
        else:
            await transaction.close()

    @asynccontextmanager
    async def statements(self) -> AsyncIterator[Transaction]:
        """One transaction of its own, for Core statements (and its ORM session when asked): committed on success,
        rolled back on any exception."""
        async with self.turn():
            transaction = await self.begin()
            try:
                yield transaction
                await transaction.commit()
            except BaseException:
                with contextlib.suppress(Exception):  # the original failure is the one to report
                    await transaction.rollback()
                raise
            finally:
                await self.end(transaction)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[DbSession]:
        """One unit of work on an ORM session of its own: committed on success, rolled back on any exception."""
        async with self.statements() as transaction:
            yield transaction.session()

    async def dispose(self) -> None:
        idle, self._idle = self._idle, None
        if idle is not None:
            await idle.close()
        if self.engine is not None:
            self.engine.dispose()
        if self.async_engine is not None:
            await self.async_engine.dispose()


def is_locked(problem: BaseException) -> bool:
    """SQLITE_BUSY: another process holds the write lock right now."""
    text = str(getattr(problem, "orig", problem)).lower()
    return "database is locked" in text or "database table is locked" in text
