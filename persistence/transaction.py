"""One transaction on one connection, as every layer uses the database: Core statements (`run`, `rows`) for the
per-call bookkeeping, and an ORM session over the same connection for domain rows; both go through SQLAlchemy's
own execution, whose compiled cache compiles each statement once.

SQLite runs on SQLAlchemy's synchronous engine, called right where it is awaited. A statement on a local file
takes microseconds; the asyncio dialect's driver (aiosqlite) hands every statement, and every fetch, to a thread
of its own and wakes the event loop when it is done, which costs several times the statement (docs/performance.md
measures it). So `InlineSession` offers the asyncio session's methods over a synchronous `Session`, run inline.
PostgreSQL runs on the asyncio engine (asyncpg), its session SQLModel's own. Callers see one interface."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar, TypeVarTuple, overload

from sqlalchemy import Connection, Row
from sqlalchemy.engine import Result, ScalarResult, TupleResult
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Executable
from sqlmodel import Session, SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import Select, SelectOfScalar

Values = Mapping[str, object]
T = TypeVar("T")
Ts = TypeVarTuple("Ts")
M = TypeVar("M", bound=SQLModel)


class InlineSession:
    """The asyncio session's interface over a synchronous ORM session on SQLite, each call run at once."""

    def __init__(self, session: Session) -> None:
        self.sync_session = session

    # The asyncio session's own signatures (SQLModel's), so that code written against either type-checks.
    @overload
    async def exec(self, statement: Select[*Ts]) -> TupleResult[tuple[*Ts]]: ...

    @overload
    async def exec(self, statement: SelectOfScalar[T]) -> ScalarResult[T]: ...

    async def exec(self, statement: Select[*Ts] | SelectOfScalar[T]) -> TupleResult[tuple[*Ts]] | ScalarResult[T]:
        return self.sync_session.exec(statement)

    # Its result's rows are typed as the statement's, which SQLAlchemy's own signature leaves as Any.
    async def execute(  # type: ignore[explicit-any]
        self, statement: Executable, params: Values | Sequence[Values] | None = None
    ) -> Result[*tuple[Any, ...]]:
        return self.sync_session.execute(statement, params)

    async def get(self, model: type[M], key: object, *, with_for_update: bool = False) -> M | None:
        return self.sync_session.get(model, key, with_for_update=with_for_update)

    def add(self, instance: object) -> None:
        self.sync_session.add(instance)

    async def flush(self) -> None:
        self.sync_session.flush()

    async def refresh(self, instance: object) -> None:
        self.sync_session.refresh(instance)

    async def delete(self, instance: object) -> None:
        self.sync_session.delete(instance)

    async def commit(self) -> None:
        self.sync_session.commit()

    async def rollback(self) -> None:
        self.sync_session.rollback()

    async def close(self) -> None:
        self.sync_session.close()

    def in_transaction(self) -> bool:
        return self.sync_session.in_transaction()

    @property
    def info(self) -> dict[object, object]:
        return self.sync_session.info

    def get_bind(self) -> Connection:
        bind = self.sync_session.get_bind()
        assert isinstance(bind, Connection)
        return bind

    @asynccontextmanager
    async def begin_nested(self) -> AsyncIterator[None]:
        with self.sync_session.begin_nested():
            yield


# What repositories and operations take: a session in a transaction (SQLite's inline one, or asyncio's).
DbSession = AsyncSession | InlineSession
BeforeCommit = Callable[[DbSession], Awaitable[None]]
K = TypeVar("K")


def kept(session: DbSession, kind: type[K]) -> K:
    """The transaction's own `kind` of thing, kept with its session (made on first ask, gone with it)."""
    found = session.info.get(kind)
    if not isinstance(found, kind):
        found = session.info[kind] = kind()
    return found


class Due(list[BeforeCommit]):
    """What must run last thing before the session's transaction commits."""


def before_commit(session: DbSession, hook: BeforeCommit) -> None:
    """`hook` runs once, last thing before the session's transaction commits (the event log writes the
    transaction's events there, all in one statement)."""
    due = kept(session, Due)
    if hook not in due:
        due.append(hook)


async def _run_before_commit(session: DbSession) -> None:
    due = kept(session, Due)
    while due:
        await due.pop(0)(session)


class Transaction:
    """A transaction begun on a connection: statements run in it, an ORM session joins it when asked."""

    _session: DbSession | None = None

    async def run(self, statement: Executable, values: Values | None = None) -> int:
        """An INSERT, UPDATE or DELETE; the rows it touched."""
        raise NotImplementedError

    async def rows(self, statement: Executable, values: Values | None = None) -> Sequence[Row[tuple[object, ...]]]:
        """A SELECT's (or a RETURNING's) rows."""
        raise NotImplementedError

    def session(self) -> DbSession:
        raise NotImplementedError

    async def commit(self) -> None:
        raise NotImplementedError

    async def rollback(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    @property
    def reusable(self) -> bool:
        """The connection may serve the next transaction (SQLite keeps its one connection between turns)."""
        return False


class InlineTransaction(Transaction):
    """SQLite: a synchronous connection whose BEGIN IMMEDIATE holds the write lock (persistence.engine)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    async def run(self, statement: Executable, values: Values | None = None) -> int:
        return self.connection.execute(statement, values).rowcount

    async def rows(self, statement: Executable, values: Values | None = None) -> Sequence[Row[tuple[object, ...]]]:
        return self.connection.execute(statement, values).all()

    def session(self) -> DbSession:
        if self._session is None:
            # It joins the connection's transaction and leaves the commit to the connection's owner.
            sync = Session(bind=self.connection, expire_on_commit=False, join_transaction_mode="rollback_only")
            self._session = InlineSession(sync)
        return self._session

    async def commit(self) -> None:
        if self._session is not None:
            await _run_before_commit(self._session)
            await self._session.commit()  # flushes its part; the connection commits below
        self.connection.commit()

    async def rollback(self) -> None:
        if self._session is not None:
            self._session.info.clear()  # what was due before a commit goes with the writes
            await self._session.rollback()
        self.connection.rollback()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
        self.connection.close()

    @property
    def reusable(self) -> bool:
        return not self.connection.invalidated and not self.connection.in_transaction()

    async def finish(self) -> None:
        """The session goes; the connection stays for the process's next turn."""
        if self._session is not None:
            await self._session.close()
            self._session = None


class AsyncTransaction(Transaction):
    """PostgreSQL: an asyncio connection from the pool."""

    def __init__(self, connection: AsyncConnection) -> None:
        self.connection = connection

    async def run(self, statement: Executable, values: Values | None = None) -> int:
        result = await self.connection.execute(statement, values)
        return result.rowcount

    async def rows(self, statement: Executable, values: Values | None = None) -> Sequence[Row[tuple[object, ...]]]:
        return (await self.connection.execute(statement, values)).all()

    def session(self) -> DbSession:
        if self._session is None:
            self._session = AsyncSession(
                bind=self.connection, expire_on_commit=False, join_transaction_mode="rollback_only"
            )
        return self._session

    async def commit(self) -> None:
        if self._session is not None:
            await _run_before_commit(self._session)
            await self._session.commit()
        await self.connection.commit()

    async def rollback(self) -> None:
        if self._session is not None:
            self._session.info.clear()
            await self._session.rollback()
        await self.connection.rollback()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
        await self.connection.close()
