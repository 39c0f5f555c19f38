"""The database, as every room uses it: one engine per process, one session type on either database, and the
unit of work a request runs in.

- SQLite runs on SQLAlchemy's synchronous engine over the stdlib driver, called right where it is awaited: a
  statement on a local file takes microseconds, and the asyncio dialect's driver hands every statement and fetch
  to a thread of its own, which costs several times the statement (docs/performance.md). A transaction that
  writes begins IMMEDIATE (SQLAlchemy's documented recipe: the driver's own transactions off, BEGIN emitted on the
  engine's `begin` event), so writers queue for the lock at their start and never fail at their first write after
  work they cannot redo; a process takes its write turns in order (an asyncio lock), and a lock another process
  holds is waited for with asynchronous pauses. A transaction that only reads begins DEFERRED, takes no turn and
  waits for no writer (WAL: readers see the last commit).
- PostgreSQL runs on the asyncio engine over asyncpg, with a fixed pool.

`Session` is one transaction on one connection, the same type on both: Core statements (`run`, `rows`) for the
per-call bookkeeping, the ORM (`exec`, `get`, `add`, …) for domain rows, and the events the transaction records
(models.events), which `commit` writes explicitly before it commits."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import inspect
import logging
import sqlite3
import time
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar, TypeVarTuple, overload

import asyncpg
from alembic import command
from alembic.config import Config
from sqlalchemy import Column, Connection, CursorResult, Engine, Row, Table, create_engine, event, insert, make_url
from sqlalchemy import exc as sql
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Result, ScalarResult, TupleResult
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DisconnectionError, IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.orm import Mapped
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection
from sqlalchemy.sql import Executable
from sqlalchemy.sql.base import ReadOnlyColumnCollection
from sqlmodel import Session as OrmSession
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import Select, SelectOfScalar
from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from models.envelope import DATABASE_UNAVAILABLE
from models.events import LineEvent, WebhookDelivery, deliveries_owed, endpoints_of, written
from models.settings import Settings

log = logging.getLogger("lineup.db")
Values = Mapping[str, object]
T = TypeVar("T")
Ts = TypeVarTuple("Ts")
M = TypeVar("M", bound=SQLModel)

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
    # A checkpoint copies every page the WAL holds back into the database file and syncs it. Every call rewrites
    # the same few pages (the token index's, the audit table's last): every 10,000 pages (40 MB of WAL) rather
    # than SQLite's 1,000, each of those is copied once for ten times as many calls (issue 36).
    "PRAGMA wal_autocheckpoint=10000",
)
READ_ONLY = "lineup_read_only"  # a connection's execution option: its transaction begins DEFERRED
_RETURNED = "lineup.returned_at"
_QUERY_ONLY = "lineup.query_only"


class Session:
    """One transaction on one connection: what handlers, activities and queries take, on either database."""

    def __init__(self, connection: Connection | AsyncConnection, *, writes: bool = True) -> None:
        self.connection = connection
        self.writes = writes  # SQLite: this transaction holds its process's write turn
        self.events: list[LineEvent] = []  # recorded by models.events.record, written by commit
        self._orm: OrmSession | AsyncSession | None = None

    @property
    def dialect(self) -> str:
        return self.connection.dialect.name

    @property
    def orm(self) -> OrmSession | AsyncSession:
        """The ORM session over this transaction's connection (made on first use); it leaves the commit to us."""
        if self._orm is None:
            if isinstance(self.connection, AsyncConnection):
                self._orm = AsyncSession(
                    bind=self.connection, expire_on_commit=False, join_transaction_mode="rollback_only"
                )
            else:
                self._orm = OrmSession(
                    bind=self.connection, expire_on_commit=False, join_transaction_mode="rollback_only"
                )
        return self._orm

    # Core statements: the ORM's pending writes go first, as before any ORM query.
    async def run(self, statement: Executable, values: Values | Sequence[Values] | None = None) -> int:
        """An INSERT, UPDATE or DELETE; the rows it touched."""
        return (await self._core(statement, values)).rowcount

    async def rows(self, statement: Executable, values: Values | None = None) -> Sequence[Row[*tuple[object, ...]]]:
        """A SELECT's (or a RETURNING's) rows."""
        return (await self._core(statement, values)).all()

    # A Core statement's rows are typed as it says, which SQLAlchemy's own signature leaves as Any.
    async def _core(  # type: ignore[explicit-any]
        self, statement: Executable, values: Values | Sequence[Values] | None
    ) -> CursorResult[Any]:
        if self._orm is not None:
            await self.flush()
        return await _result(self.connection.execute(statement, values))

    # The ORM, with SQLModel's own signatures.
    @overload
    async def exec(self, statement: Select[*Ts]) -> TupleResult[tuple[*Ts]]: ...

    @overload
    async def exec(self, statement: SelectOfScalar[T]) -> ScalarResult[T]: ...

    async def exec(self, statement: Select[*Ts] | SelectOfScalar[T]) -> TupleResult[tuple[*Ts]] | ScalarResult[T]:
        return await _result(self.orm.exec(statement))

    async def execute(  # type: ignore[explicit-any]
        self, statement: Executable, params: Values | Sequence[Values] | None = None
    ) -> Result[*tuple[Any, ...]]:
        return await _result(self.orm.execute(statement, params))

    async def get(self, model: type[M], key: object, *, with_for_update: bool = False) -> M | None:
        return await _result(self.orm.get(model, key, with_for_update=with_for_update))

    def add(self, instance: object) -> None:
        self.orm.add(instance)

    async def flush(self) -> None:
        await _result(self.orm.flush())

    async def delete(self, instance: object) -> None:
        await _result(self.orm.delete(instance))

    @asynccontextmanager
    async def begin_nested(self) -> AsyncIterator[None]:
        """A savepoint: an exception rolls back the block's writes, not the transaction's."""
        orm = self.orm
        if isinstance(orm, AsyncSession):
            async with orm.begin_nested():
                yield
        else:
            with orm.begin_nested():
                yield

    async def commit(self) -> None:
        """Writes the events the transaction recorded, its ORM rows, then commits."""
        if self.events:
            await self._write_events()
        if self._orm is not None:
            await _result(self._orm.commit())  # a flush: the commit is ours
        await _result(self.connection.commit())

    async def _write_events(self) -> None:
        """The event log's outbox: the events in one INSERT, their vendors' endpoints in one read, the deliveries
        those endpoints want in one INSERT (the delivery workflow finds them)."""
        events, self.events = self.events, []
        ids = {str(row[1]): int(str(row[0])) for row in await self.rows(written(events))}
        for recorded in events:
            recorded.id = ids[recorded.public_id]
        endpoints = await self.rows(endpoints_of({recorded.vendor_id for recorded in events}))
        owed = deliveries_owed(events, ids, [(int(str(row[0])), int(str(row[1])), str(row[2])) for row in endpoints])
        if owed:
            await self.run(insert(WebhookDelivery), owed)

    async def rollback(self) -> None:
        self.events.clear()  # what the transaction recorded goes with its writes
        if self._orm is not None:
            await _result(self._orm.rollback())
        await _result(self.connection.rollback())

    async def close(self) -> None:
        if self._orm is not None:
            orm, self._orm = self._orm, None
            await _result(orm.close())
        await _result(self.connection.close())


async def _result(value: Awaitable[T] | T) -> T:
    """A call's result on either database: awaited from the asyncio driver, taken as it is from the synchronous one."""
    return await value if inspect.isawaitable(value) else value


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
        # A writer takes the lock at its start: a deferred transaction that reads and then writes could find the
        # database changed under it and fail at its first write, after work the caller cannot redo.
        read_only = connection.get_execution_options().get(READ_ONLY, False)
        if read_only:  # and a write in a reader fails at once, by name, rather than taking the lock unasked
            pooled = connection.connection
            driver = pooled.driver_connection
            assert driver is not None  # a connection in use has its driver's
            driver.execute("PRAGMA query_only=ON")
            pooled.info[_QUERY_ONLY] = True
        connection.exec_driver_sql("BEGIN DEFERRED" if read_only else "BEGIN IMMEDIATE")

    @event.listens_for(engine, "checkin")
    def _returned(dbapi: DBAPIConnection | None, record: ConnectionPoolEntry) -> None:
        if dbapi is not None and record.info.pop(_QUERY_ONLY, False):  # a reader's: the next user may write
            dbapi.cursor().execute("PRAGMA query_only=OFF")

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
    and no SQLite lock is held while a caller waits on something else. Every process opens one; nothing connects
    at import time."""

    def __init__(self, settings: Settings, url: str | None = None) -> None:
        url = url or settings.db_url
        self.sqlite = url.startswith("sqlite")
        if self.sqlite:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.engine: Engine | None = sqlite_engine(url) if self.sqlite else None
        self.async_engine: AsyncEngine | None = None if self.sqlite else postgres_engine(url, settings)
        # SQLite has one writer: a process takes its write turns in order instead of meeting its own lock.
        self._turns = asyncio.Lock()
        self._holder: asyncio.Task[object] | None = None

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[Session]:
        """A transaction of its own: committed at the end of the block, rolled back on any exception. `write`
        False: it only reads, and on SQLite neither takes nor waits for the write lock."""
        session = await self.begin(write=write)
        try:
            yield session
            await session.commit()
        except BaseException:
            with contextlib.suppress(Exception):  # the original failure is the one to report
                await session.rollback()
            raise
        finally:
            await self.end(session)

    async def begin(self, *, write: bool = True) -> Session:
        """A transaction begun; end it with `end` once it has committed or rolled back."""
        if self.async_engine is not None:
            connection = await self.async_engine.connect()
            try:
                await connection.begin()
            except BaseException:
                await connection.close()
                raise
            return Session(connection)
        assert self.engine is not None
        if not write:
            reader = self.engine.connect().execution_options(**{READ_ONLY: True})
            reader.begin()
            return Session(reader, writes=False)
        await self._take_turn()
        try:
            return Session(await self._locked(self.engine), writes=True)
        except BaseException:
            self._release_turn()
            raise

    async def end(self, session: Session) -> None:
        """Takes back a transaction that has committed or rolled back."""
        try:
            await session.close()
        finally:
            if self.sqlite and session.writes:
                self._release_turn()

    async def _take_turn(self) -> None:
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            # It would wait for itself forever: a transaction must finish before the same task opens another.
            raise RuntimeError("a transaction was opened inside another one of the same task")
        await self._turns.acquire()
        self._holder = task

    def _release_turn(self) -> None:
        self._holder = None
        self._turns.release()

    async def _locked(self, engine: Engine) -> Connection:
        """A connection whose BEGIN IMMEDIATE holds the write lock, waited for without blocking the event loop."""
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + LOCK_WAIT_SECONDS, FIRST_PAUSE
        while True:
            connection = engine.connect()
            try:
                connection.begin()
                return connection
            except OperationalError as problem:
                connection.close()
                if not is_locked(problem) or loop.time() >= deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    async def dispose(self) -> None:
        if self.engine is not None:
            self.engine.dispose()
        if self.async_engine is not None:
            await self.async_engine.dispose()


def is_locked(problem: BaseException) -> bool:
    """SQLITE_BUSY: another process holds the write lock right now."""
    text = str(getattr(problem, "orig", problem)).lower()
    return "database is locked" in text or "database table is locked" in text


# Work that must land in the transaction that commits, whichever that is (the token claim, the audit row).
CommitStep = Callable[[Session], Awaitable[None]]


class UnitOfWork:
    """One request's database work, in one transaction until its first outside wait. The dispatcher opens the
    transaction at the token check; the caller read, the operation's writes, the token claim, the next token and
    the audit row all go in it and commit once. An operation that must wait on something else (Temporal, another
    system, argon2) commits first, as its one named step (`commit_before_wait`): that commit carries the token
    claim, and whatever the request writes afterwards goes in short transactions of its own. Opened lazily: a
    request refused before it needs the database never checks out a connection."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._session: Session | None = None
        self._reading = False  # the next transaction only reads (see `reads`)
        self._before_commit: list[CommitStep] = []
        self._applied: list[CommitStep] = []  # ran in the open transaction; run again if it rolls back
        self.commits = 0  # how many transactions this request committed (the statement-count tests read it)

    @property
    def open(self) -> bool:
        return self._session is not None

    async def session(self) -> Session:
        """The request's transaction, opened if it is not."""
        if self._session is None:
            self._session = await self._db.begin(write=not self._reading)
        return self._session

    def reads(self) -> None:
        """The request only reads (an action declared so): on SQLite its transaction takes no write turn and no
        lock, and whatever must be written when it commits (the token's claim, the next token, the audit row) is
        written by a short transaction of its own then. On PostgreSQL, where readers wait for no writer, nothing
        changes."""
        self._reading = self._db.sqlite

    def before_commit(self, step: CommitStep) -> None:
        """`step` runs in the transaction that commits next (then it is done)."""
        self._before_commit.append(step)

    def applied(self, again: CommitStep) -> None:
        """Work done in the open transaction that must land whatever the request does next (the token's claim):
        should that transaction roll back, `again` runs in the one that commits next, first."""
        self._applied.append(again)

    async def commit(self) -> None:
        """Runs what must go in the committing transaction, then commits (opening one if none is open). A reading
        transaction ends first, and the steps go in a writing one."""
        if self._session is not None and not self._session.writes and self._before_commit:
            await self._end()  # nothing of it to keep: it only read
        self._reading = False  # what follows a commit is the request's own writing, in transactions of its own
        session = await self.session()
        try:
            steps, self._before_commit = self._before_commit, []
            for step in steps:
                await step(session)
            await session.commit()
        except BaseException:
            await self.rollback()
            raise
        self.commits += 1
        self._applied = []
        await self._end()

    async def commit_before_wait(self) -> None:
        """The one named step that ends the request's transaction early, before it waits on something else."""
        if self._session is not None:
            await self.commit()

    async def rollback(self) -> None:
        """Drops the open transaction's writes; what must go in a committing transaction stays due."""
        if self._session is not None:
            with contextlib.suppress(Exception):  # the failure that brought us here is the one to report
                await self._session.rollback()
            await self._end()
            self._before_commit[:0], self._applied = self._applied, []

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Session]:
        """The request's open transaction (its writes commit with it), or a short one of its own committed at
        the end of the block; either way an exception rolls the block's transaction back."""
        if self._session is not None:
            yield self._session
            return
        session = await self.session()
        try:
            yield session
        except BaseException:
            await self.rollback()
            raise
        await self.commit()

    async def _end(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await self._db.end(session)

    async def close(self) -> None:
        await self.rollback()


# ---- statements every call runs, and rows made once per request key ------------------------------------------

# A table's columns as SQLAlchemy types them (its default names them with Any).
Columns = ReadOnlyColumnCollection[str, Column[object]]


def table(name: str) -> Table[Columns]:
    """A mapped table by its name, for the compiled Core statements every call runs."""
    return SQLModel.metadata.tables[name]


async def insert_or_skip(session: Session, model: type[SQLModel], values: Mapping[str, object]) -> None:
    """INSERT … ON CONFLICT DO NOTHING: a row a concurrent writer made first stays as it is, and nothing rolls back
    (a rollback would expire what the caller holds)."""
    dialect = postgresql if session.dialect == "postgresql" else sqlite
    await session.run(dialect.insert(model).values(dict(values)).on_conflict_do_nothing())


async def insert_or_lock(
    session: Session, model: type[SQLModel], values: Mapping[str, object], *, key: str, returning: Sequence[str]
) -> Row[*tuple[object, ...]]:
    """INSERT … ON CONFLICT (key) DO UPDATE SET key = key … RETURNING: the row made or found, locked for the rest of
    the transaction on PostgreSQL (SQLite's writers go one at a time), so concurrent writers of one row go in turn."""
    dialect = postgresql if session.dialect == "postgresql" else sqlite
    columns = table(str(model.__tablename__)).c
    statement = dialect.insert(model).values(dict(values))
    statement = statement.on_conflict_do_update(index_elements=[columns[key]], set_={key: values[key]})
    [row] = await session.rows(statement.returning(*(columns[name] for name in returning)))
    return row


class Keyed(Protocol):
    """A table whose rows carry the request key they were made under."""

    id: int | None
    idempotency_key: str | None


def _key_column(table: type[SQLModel]) -> Mapped[str | None]:
    column: Mapped[str | None] = col(getattr(table, "idempotency_key"))  # noqa: B009 — each keyed table has it
    return column


async def id_for_key(session: Session, table: type[SQLModel], key: str) -> int | None:
    """The id of the row an earlier request with this key created in `table`, or None."""
    found: int | None = (
        await session.exec(select(col(getattr(table, "id"))).where(_key_column(table) == key))  # noqa: B009
    ).first()
    return found


async def row_for_key(session: Session, table: type[M], key: str) -> M | None:
    """The whole row an earlier request with this key created in `table`, or None."""
    return (await session.exec(select(table).where(_key_column(table) == key))).first()


async def insert_once(
    uow: UnitOfWork, table: type[SQLModel], key: str | None, build: Callable[[Session], Awaitable[Keyed]]
) -> int | None:
    """Inserts the row `build` makes (it may refuse first), once per request key: a repeated request, or one
    racing it, answers the id of the row the first one inserted. Without a key every call inserts."""
    async with uow.transaction() as session:
        if key and (done := await id_for_key(session, table, key)):
            return done
        row = await build(session)
        if key is None:
            session.add(row)
            await session.flush()
            return row.id
        try:
            # A savepoint: the same request racing in another process rolls back this insert, not the request.
            async with session.begin_nested():
                session.add(row)
                await session.flush()
            return row.id
        except IntegrityError:
            return await id_for_key(session, table, key)


# ---- when the database is away --------------------------------------------------------------------------------

# A database's own word for "not now": refused, shutting down, starting up, out of connections.
_POSTGRES_DOWN = (
    asyncpg.PostgresConnectionError
    | asyncpg.CannotConnectNowError
    | asyncpg.AdminShutdownError
    | asyncpg.CrashShutdownError
    | asyncpg.TooManyConnectionsError
)
# SQLite says "OperationalError" for syntax errors too: only these mean the file cannot be used now.
_SQLITE_DOWN = ("unable to open", "database is locked", "disk i/o error")
_DRIVERS = ("asyncpg", "sqlalchemy", "sqlite3")


class RecordNotFound(LookupError):
    """A row that must exist (a line, its port order, an outbox message) does not."""


def database_unavailable(error: BaseException) -> bool:
    """True when `error` says the database cannot be reached (refused, timed out, gone, shutting down, a file
    that cannot be opened), not that a statement was wrong: an outage to wait out, not a bug."""
    if isinstance(error, sql.TimeoutError):  # no pooled connection came free in time
        return True
    if isinstance(error, sql.DBAPIError):
        if error.connection_invalidated:  # the driver says the connection dropped
            return True
        cause = error.orig.__cause__ if error.orig is not None else None
        if isinstance(error.orig, sqlite3.OperationalError):
            return any(words in str(error.orig).lower() for words in _SQLITE_DOWN)
        return isinstance(cause, _POSTGRES_DOWN | OSError)
    # Connecting is not wrapped: the driver's own refusal, or the socket's (refused, unreachable, timed out).
    return isinstance(error, _POSTGRES_DOWN) or (isinstance(error, OSError) and _in_driver(error))


def _in_driver(error: BaseException) -> bool:
    """Raised while the database driver was connecting or talking, not by some other client of the process."""
    modules = (frame.f_globals.get("__name__", "") for frame, _ in traceback.walk_tb(error.__traceback__))
    return any(module.split(".")[0] in _DRIVERS for module in modules)


@asynccontextmanager
async def database_outage() -> AsyncIterator[None]:
    """Wraps a carrier step's activity: Lineup's own database away is its own failure type (one log line, no
    traceback), which the workflow waits out instead of spending the carrier's attempts on it."""
    try:
        yield
    except Exception as problem:
        if not database_unavailable(problem):
            raise
        fields: dict[str, object] = {"reason": type(problem).__name__}
        if activity.in_activity():  # which line's step: its workflow and activity
            info = activity.info()
            fields.update(workflow_id=info.workflow_id, workflow_type=info.workflow_type, activity=info.activity_type)
        log.warning("database unavailable", extra={"fields": fields})
        raise ApplicationError(
            "The database is unavailable", type=DATABASE_UNAVAILABLE, category=ApplicationErrorCategory.BENIGN
        ) from None


# ---- the schema: Alembic as a library, the only path to it (the CLI, `make run`, the tests) -------------------


def _scripts() -> Path:
    # Found, not imported: the migrations' env.py imports this module, and a static import back would be a cycle.
    spec = importlib.util.find_spec("migrations")
    assert spec is not None and spec.submodule_search_locations, "the migrations package is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(_scripts()))
    config.set_main_option("sqlalchemy.url", url)
    return config


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


async def upgrade_async(url: str, revision: str = "head") -> None:
    """env.py runs its own event loop, so from async code it runs on a thread."""
    await asyncio.to_thread(upgrade, url, revision)
