"""UnitOfWork: one request's database work, in one transaction until the request's first outside wait. The
dispatcher opens the transaction at the token check; the caller read, the operation's writes, the token claim,
the next token and the audit row all go in it and commit once. An operation that must wait on something else
(Temporal, another system, argon2) commits first, as its one named step (`commit_before_wait`): that commit
carries the token claim, and whatever the request writes afterwards goes in short transactions of its own.

Statements every call runs go to the transaction directly (`Transaction.run`, `rows`); an ORM session joins it
only when an operation asks for one."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from persistence.engine import Database
from persistence.transaction import DbSession, Transaction

# Work that must land in the transaction that commits, whichever that is (the token claim).
BeforeCommit = Callable[[Transaction], Awaitable[None]]


class UnitOfWork:
    """Opened lazily: a request refused before it needs the database never checks out a connection."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._transaction: Transaction | None = None
        self._turn: AbstractAsyncContextManager[None] | None = None
        self._before_commit: list[BeforeCommit] = []
        self.commits = 0  # how many transactions this request committed (the statement-count tests read it)

    @property
    def open(self) -> bool:
        """A transaction of the request is open."""
        return self._transaction is not None

    async def transaction_now(self) -> Transaction:
        """The request's transaction, opened if it is not."""
        if self._transaction is None:
            turn = self._db.turn()
            await turn.__aenter__()
            try:
                self._transaction = await self._db.begin()
            except BaseException:
                await turn.__aexit__(None, None, None)
                raise
            self._turn = turn
        return self._transaction

    async def session(self) -> DbSession:
        """The request's ORM session, in its transaction (opened if it is not)."""
        return (await self.transaction_now()).session()

    def before_commit(self, hook: BeforeCommit) -> None:
        """`hook` runs in the transaction that commits next (then it is done)."""
        self._before_commit.append(hook)

    async def commit(self) -> None:
        """Runs what must go in the committing transaction, then commits (opening one if none is open)."""
        transaction = await self.transaction_now()
        try:
            hooks, self._before_commit = self._before_commit, []
            for hook in hooks:
                await hook(transaction)
            await transaction.commit()
        except BaseException:
            await self.rollback()
            raise
        self.commits += 1
        await self._end()

    async def commit_before_wait(self) -> None:
        """The one named step that ends the request's transaction early: before the request waits on something
        else (Temporal, another system, argon2), so that no connection and no SQLite lock is held meanwhile."""
        if self._transaction is not None:
            await self.commit()

    async def rollback(self) -> None:
        """Drops the open transaction's writes; what must go in a committing transaction stays due."""
        if self._transaction is not None:
            with contextlib.suppress(Exception):  # the failure that brought us here is the one to report
                await self._transaction.rollback()
            await self._end()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[DbSession]:
        """The request's open transaction (its writes commit with it), or a short one of its own committed at
        the end of the block; either way an exception rolls the block's transaction back."""
        if self._transaction is not None:
            yield self._transaction.session()
            return
        session = await self.session()
        try:
            yield session
        except BaseException:
            await self.rollback()
            raise
        await self.commit()

    async def _end(self) -> None:
        transaction, turn = self._transaction, self._turn
        self._transaction = self._turn = None
        try:
            if transaction is not None:
                await self._db.end(transaction)
        finally:
            if turn is not None:
                await turn.__aexit__(None, None, None)

    async def close(self) -> None:
        await self.rollback()
