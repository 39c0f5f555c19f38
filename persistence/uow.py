"""UnitOfWork: one request's database work. The dispatcher opens the request's transaction at the token check;
the caller read, the operation's writes, the token claim, the next token and the audit row all go in it and
commit once. An operation that must wait on something else (another system, argon2) releases it first: the
transaction commits then, with the token claim, and whatever the request writes afterwards goes in short
transactions of its own."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from sqlmodel.ext.asyncio.session import AsyncSession

from persistence.engine import Database

# Work that must land in the transaction that commits, whichever that is (the token claim).
BeforeCommit = Callable[[AsyncSession], Awaitable[None]]


class UnitOfWork:
    """Opened lazily: a request refused before it needs the database never checks out a connection."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # One session for the whole request (rows it read stay usable after a commit); transactions come and go.
        self._session: AsyncSession | None = None
        self._turn: AbstractAsyncContextManager[None] | None = None
        self._before_commit: list[BeforeCommit] = []

    @property
    def open(self) -> bool:
        """A transaction of the request is open."""
        return self._turn is not None

    async def begin(self) -> AsyncSession:
        """The request's transaction, opened if it is not."""
        if self._session is None:
            self._session = self._db.session()
        if self._turn is None:
            turn = self._db.turn()
            await turn.__aenter__()
            try:
                await self._db.begin(self._session)
            except BaseException:
                await turn.__aexit__(None, None, None)
                raise
            self._turn = turn
        return self._session

    def before_commit(self, hook: BeforeCommit) -> None:
        """`hook` runs in the transaction that commits next (then it is done)."""
        self._before_commit.append(hook)

    async def commit(self) -> None:
        """Runs what must go in the committing transaction, then commits (opening one if none is open)."""
        session = await self.begin()
        try:
            hooks, self._before_commit = self._before_commit, []
            for hook in hooks:
                await hook(session)
            await session.commit()
        except BaseException:
            await self.rollback()
            raise
        await self._end()

    async def release(self) -> None:
        """Ends the request's transaction before the caller waits on something else; nothing if none is open."""
        if self._turn is not None:
            await self.commit()

    async def rollback(self) -> None:
        """Drops the open transaction's writes; what must go in a committing transaction stays due."""
        if self._turn is not None and self._session is not None:
            with contextlib.suppress(Exception):  # the failure that brought us here is the one to report
                await self._session.rollback()
            await self._end()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """The request's open transaction (its writes commit with it), or a short one of its own committed at
        the end of the block; either way an exception rolls the block's transaction back."""
        if self._turn is not None and self._session is not None:
            yield self._session
            return
        session = await self.begin()
        try:
            yield session
        except BaseException:
            await self.rollback()
            raise
        await self.commit()

    async def _end(self) -> None:
        turn, self._turn = self._turn, None
        if turn is not None:
            await turn.__aexit__(None, None, None)

    async def close(self) -> None:
        await self.rollback()
        if self._session is not None:
            await self._session.close()
            self._session = None
