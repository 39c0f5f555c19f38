"""SQLite for the async engine, run right where it is awaited. A statement on a local file takes microseconds;
aiosqlite would hand each one to a thread of its own and wake the event loop when it is done, which costs far
more than the work. These connections are the stdlib's, adapted to the interface SQLAlchemy's async SQLite
dialect drives, each call run at once.

What could block is waiting for the write lock, so no statement ever waits for it: `busy_timeout` is 0, every
transaction begins IMMEDIATE (the only statement that can meet the lock in WAL mode), and a locked begin is
retried with an asynchronous pause (persistence.engine). One process takes its write transactions in turn (an
asyncio lock), so it never meets its own lock."""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_dbapi, SQLiteDialect_aiosqlite
from sqlalchemy.engine.interfaces import AdaptedConnection, DBAPIConnection
from sqlalchemy.util.concurrency import await_

PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    # In WAL mode NORMAL cannot corrupt the database; it syncs at checkpoints instead of every commit.
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=0",
)
Row = tuple[object, ...]
SqlValue = str | bytes | int | float | None
Parameters = Sequence[object] | dict[str, object]


async def _done() -> None:
    return None


class InlineCursor:
    """A stdlib cursor as the dialect drives an async one: its rows are read at execute."""

    server_side = False

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._cursor = connection.cursor()
        self._rows: deque[Row] = deque()
        self.arraysize = 1

    @property
    def description(self) -> object:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    def execute(self, operation: str, parameters: Parameters | None = None) -> None:
        self._cursor.execute(operation, () if parameters is None else parameters)
        self._rows = deque(self._cursor.fetchall()) if self._cursor.description else deque()
        # The async engine checks that a statement went through the event loop (a driver that never awaits is
        # taken for a sync one by mistake); one switch says it did, and costs a fraction of a thread hop.
        await_(_done())

    def executemany(self, operation: str, parameters: Sequence[Parameters]) -> None:
        self._cursor.executemany(operation, parameters)
        await_(_done())

    async def _async_soft_close(self) -> None:
        """The rows are already read: nothing is pending on the cursor."""

    def close(self) -> None:
        self._rows.clear()
        self._cursor.close()

    def fetchone(self) -> Row | None:
        return self._rows.popleft() if self._rows else None

    def fetchmany(self, size: int | None = None) -> list[Row]:
        rows = self._rows
        return [rows.popleft() for _ in range(min(size or self.arraysize, len(rows)))]

    def fetchall(self) -> list[Row]:
        rows = list(self._rows)
        self._rows.clear()
        return rows

    def __iter__(self) -> Iterator[Row]:
        while self._rows:
            yield self._rows.popleft()


class InlineConnection(AdaptedConnection):
    """A stdlib connection behind the async dialect's adapted-connection interface."""

    __slots__ = ("dbapi", "sqlite")

    def __init__(self, dbapi: InlineDbapi, connection: sqlite3.Connection) -> None:
        self.dbapi, self.sqlite = dbapi, connection

    @property
    def driver_connection(self) -> sqlite3.Connection:
        return self.sqlite

    def cursor(self, server_side: bool = False) -> InlineCursor:
        return InlineCursor(self.sqlite)  # every result is small: rows are read at execute either way

    def execute(self, operation: str, parameters: Parameters | None = None) -> InlineCursor:
        cursor = self.cursor()
        cursor.execute(operation, parameters)
        return cursor

    @property
    def isolation_level(self) -> str | None:
        return self.sqlite.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: Literal["DEFERRED", "EXCLUSIVE", "IMMEDIATE"] | None) -> None:
        self.sqlite.isolation_level = value

    # SQLAlchemy registers its functions (regexp, floor) through this; each takes its own arguments.
    def create_function(self, name: str, arguments: int, function: Callable[..., SqlValue], **flags: bool) -> None:  # type: ignore[explicit-any]
        self.sqlite.create_function(name, arguments, function, **flags)

    def commit(self) -> None:
        self.sqlite.commit()

    def rollback(self) -> None:
        self.sqlite.rollback()

    def close(self) -> None:
        self.sqlite.close()


class InlineDbapi(AsyncAdapt_aiosqlite_dbapi):
    """The dialect's DBAPI module: the stdlib's errors and types, its connections opened with our pragmas."""

    def __init__(self) -> None:
        super().__init__(sqlite3, sqlite3)

    def connect(self, *args: object, **kwargs: object) -> InlineConnection:  # type: ignore[override]
        database = str(args[0] if args else kwargs["database"])
        return InlineConnection(self, _open(database))


class InlineDialect(SQLiteDialect_aiosqlite):
    """The async SQLite dialect on these connections; every transaction it begins holds the write lock."""

    driver = "lineup"
    supports_statement_cache = True
    has_terminate = False

    @classmethod
    def import_dbapi(cls) -> InlineDbapi:
        return InlineDbapi()

    def get_driver_connection(self, connection: DBAPIConnection) -> sqlite3.Connection:  # type: ignore[override]
        assert isinstance(connection, InlineConnection)
        return connection.sqlite

    def do_begin(self, dbapi_connection: DBAPIConnection) -> None:
        # The write lock is taken at the start: a deferred transaction that reads and then writes could find the
        # database changed under it and fail at its first write, after work the caller cannot redo.
        dbapi_connection.execute("BEGIN IMMEDIATE")


# `sqlite+lineup://` (persistence.engine turns the configured `sqlite+aiosqlite://` URL into it).
registry.register("sqlite.lineup", __name__, "InlineDialect")


def _open(path: str) -> sqlite3.Connection:
    # One event loop's thread uses a connection; the pool may close it from another (at dispose). Autocommit
    # mode: the transactions are the explicit BEGIN IMMEDIATE the engine issues.
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    for pragma in PRAGMAS:
        connection.execute(pragma)
    return connection


def is_locked(problem: BaseException) -> bool:
    """SQLITE_BUSY: another process holds the write lock right now."""
    text = str(getattr(problem, "orig", problem)).lower()
    return "database is locked" in text or "database table is locked" in text
