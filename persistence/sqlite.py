"""SQLite without a thread hop per statement. aiosqlite runs every statement on a thread of its own and wakes
the event loop when it is done; a statement on a local file takes microseconds, so the hop costs far more than
the work. These connections run each call right where it is awaited. What could block is waiting for the write
lock, so no statement ever waits for it: `busy_timeout` is 0, every transaction begins IMMEDIATE (the only
statement that can meet the lock in WAL mode), and a locked begin is retried with an asynchronous pause
(persistence.engine). One process takes its write transactions in turn (an asyncio lock), so it never meets
its own lock."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from functools import partial
from queue import SimpleQueue

import aiosqlite

PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    # In WAL mode NORMAL cannot corrupt the database; it syncs at checkpoints instead of every commit.
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=0",
)


class _RunNow(SimpleQueue[tuple[asyncio.Future[object] | None, Callable[[], object]]]):
    """Stands in for aiosqlite's queue to its thread: a call put here runs at once, its future already set."""

    def put_nowait(self, item: tuple[asyncio.Future[object] | None, Callable[[], object]]) -> None:
        future, call = item
        try:
            result = call()
        except BaseException as problem:  # noqa: BLE001 — handed to the awaiting caller, as aiosqlite would
            if future is not None:
                future.set_exception(problem)
            return
        if future is not None:
            future.set_result(result)


class InlineConnection(aiosqlite.Connection):
    """aiosqlite's Connection, as SQLAlchemy's aiosqlite dialect drives it, minus the thread."""

    def __init__(self, connector: Callable[[], sqlite3.Connection]) -> None:
        super().__init__(connector, iter_chunk_size=64)
        self._tx = _RunNow()  # the dialect queues some calls itself

    async def _execute(self, fn: Callable[..., object], *args: object, **kwargs: object) -> object:
        if not self._running or not self._connection:
            raise ValueError("Connection closed")
        return fn(*args, **kwargs)

    async def _connect(self) -> InlineConnection:
        if self._connection is None:
            self._connection = self._connector()
        return self

    def __await__(self):  # type: ignore[no-untyped-def]  # aiosqlite's own signature
        return self._connect().__await__()

    def stop(self) -> None:
        self._running = False
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def close(self) -> None:
        self.stop()


def _open(path: str) -> sqlite3.Connection:
    # The connection is used by one event loop's thread; the pool may close it from another (at dispose).
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    for pragma in PRAGMAS:
        connection.execute(pragma)
    return connection


def creator(path: str) -> Callable[[], Awaitable[InlineConnection]]:
    """The `async_creator` SQLAlchemy opens each pooled connection with."""

    async def connect() -> InlineConnection:
        return await InlineConnection(partial(_open, path))._connect()

    return connect


def is_locked(problem: BaseException) -> bool:
    """SQLITE_BUSY: another process holds the write lock right now."""
    text = str(getattr(problem, "orig", problem)).lower()
    return "database is locked" in text or "database table is locked" in text
