"""UnitOfWork: one request's database work. The dispatcher opens the request's transaction at the token check;
the caller read, the operation's writes, the token claim, the next token and the audit row all go in it and
commit once. An operation that must wait on something else (another system, argon2) releases it first: the
transaction commits then, with the token claim, and whatever the request writes afterwards goes in short
transactions of its own.

The transaction lives on a connection; statements every call runs go to it directly (persistence.core), and an
ORM session is made over it only when an operation asks for one."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel.ext.asyncio.session import AsyncSession

from persistence.engine import Database

# Work that must land in the transaction that commits, whichever that is (the token claim).
BeforeCommit = Callable[[AsyncConnection], Awaitable[None]]


class UnitOfWork:
    """Opened lazily: a request refused before it needs the database never checks out a connection."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._connection: AsyncConnection | None = None
        self._session: AsyncSession | None = None
        self._turn: AbstractAsyncContextManager[None] | None = None
        self._before_commit: list[BeforeCommit] = []

    @property
    def open(self) -> bool:
        """A transaction of the request is open."""
        return self._connection is not None

    async def connection(self) -> AsyncConnection:
        """The request's transaction, opened if it is not."""
        if self._connection is None:
            turn = self._db.turn()
            await turn.__aenter__()
            try:
                self._connection = await self._db.connect()
            except BaseException:
                await turn.__aexit__(None, None, None)
                raise
            self._turn = turn
        return self._connection

    async def session(self) -> AsyncSession:
        """The request's ORM session, in its transaction (opened if it is not). One session serves the request's
        transactions in turn, so what it read in one is still its own in the next."""
        connection = await self.connection()
        if self._session is None:
            self._session = self._db.session_on(connection)
        elif not self._session.in_transaction():
            self._session.bind = connection  # the transaction's connection (PostgreSQL's changes between them)
        if not self._session.in_transaction():
            await self._session.begin()
        return self._session

    def before_commit(self, hook: BeforeCommit) -> None:
        """`hook` runs in the transaction that commits next (then it is done)."""
        self._before_commit.append(hook)

    async def commit(self) -> None:
        """Runs what must go in the committing transaction, then commits (opening one if none is open)."""
        connection = await self.connection()
        try:
            if self._session is not None and self._session.in_transaction():
                await self._session.commit()  # flushes and ends its part; the connection commits below
            hooks, self._before_commit = self._before_commit, []
            for hook in hooks:
                await hook(connection)
            await connection.commit()
        except BaseException:
            await self.rollback()
            raise
        await self._end()

    async def release(self) -> None:
        """Ends the request's transaction before the caller waits on something else; nothing if none is open."""
        if self._connection is not None:
            await self.commit()

    async def rollback(self) -> None:
        """Drops the open transaction's writes; what must go in a committing transaction stays due."""
        if self._connection is not None:
            with contextlib.suppress(Exception):  # the failure that brought us here is the one to report
                if self._session is not None and self._session.in_transaction():
                    await self._session.rollback()  # the connection's too, and what the session read expires
                else:
                    await self._connection.rollback()
            await self._end()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """The request's open transaction (its writes commit with it), or a short one of its own committed at
        the end of the block; either way an exception rolls the block's transaction back."""
        if self._connection is not None:
            yield await self.session()
            return
        session = await self.session()
        try:
            yield session
        except BaseException:
            await self.rollback()
            raise
        await self.commit()

    async def _end(self) -> None:
        connection, turn = self._connection, self._turn
        self._connection = self._turn = None
        try:
            if connection is not None:
                await self._db.checkin(connection)
        finally:
            if turn is not None:
                await turn.__aexit__(None, None, None)

    async def close(self) -> None:
        await self.rollback()
        if self._session is not None:
            await self._session.close()
            self._session = None
