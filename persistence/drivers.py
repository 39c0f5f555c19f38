"""A compiled statement run on the driver under a SQLAlchemy connection, inside the transaction SQLAlchemy
holds there: the stdlib's sqlite3 (persistence.sqlite) and asyncpg. Other drivers are left to SQLAlchemy."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_connection, AsyncAdapt_asyncpg_dbapi
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from persistence.sqlite import InlineConnection

Row = tuple[object, ...]


@dataclass(frozen=True)
class Outcome:
    rows: list[Row]
    count: int  # the rows a write touched, or the rows read


class Driver:
    async def run(self, sql: str, parameters: Row, *, reads: bool) -> Outcome:
        raise NotImplementedError


class Sqlite(Driver):
    """A local file: the statement runs right here, in microseconds."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    async def run(self, sql: str, parameters: Row, *, reads: bool) -> Outcome:
        try:
            cursor = self.connection.execute(sql, parameters)
            rows = cursor.fetchall() if reads else []
        except sqlite3.Error as problem:  # raised as SQLAlchemy would (IntegrityError, OperationalError, …)
            raise DBAPIError.instance(sql, parameters, problem, sqlite3.Error) from problem
        return Outcome(rows, len(rows) if reads else cursor.rowcount)


class Asyncpg(Driver):
    """PostgreSQL through asyncpg, its statements prepared once per connection (asyncpg's own cache)."""

    def __init__(self, adapted: AsyncAdapt_asyncpg_connection) -> None:
        self.adapted = adapted

    async def run(self, sql: str, parameters: Row, *, reads: bool) -> Outcome:
        adapted = self.adapted
        try:
            # SQLAlchemy's adapter begins its transaction lazily, at the first statement it runs itself; one
            # handed to the driver first begins it the same way, or it would run outside the transaction.
            # (The adapter's own members: its state must stay what its later commit or rollback expects.)
            if adapted._transaction is None:
                await adapted._start_transaction()  # type: ignore[no-untyped-call]
            if reads:
                rows = [tuple(record) for record in await adapted.driver_connection.fetch(sql, *parameters)]
                return Outcome(rows, len(rows))
            status = await adapted.driver_connection.execute(sql, *parameters)  # "INSERT 0 1", "UPDATE 3"
            return Outcome([], int(status.rsplit(" ", 1)[-1]))
        except Exception as problem:
            try:
                adapted._handle_exception(problem)  # the DBAPI error SQLAlchemy's adapter would raise
            except AsyncAdapt_asyncpg_dbapi.Error as translated:
                raise DBAPIError.instance(sql, parameters, translated, AsyncAdapt_asyncpg_dbapi.Error) from problem
            raise


def driver_of(connection: AsyncConnection) -> Driver | None:
    """The driver under `connection`, when it is one run here."""
    if connection.sync_connection is None:
        return None
    adapted = connection.sync_connection.connection.dbapi_connection
    if isinstance(adapted, InlineConnection):
        return Sqlite(adapted.sqlite)
    if isinstance(adapted, AsyncAdapt_asyncpg_connection):
        return Asyncpg(adapted)
    return None
