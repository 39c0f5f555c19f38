"""UnitOfWork: the one session a request works in, shared by the token check, the agent lookup, the
operation and the audit row."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession


class UnitOfWork:
    """Opened lazily: a request refused before it needs the database never checks out a connection.
    Its transactions are explicit and short (the session does not autobegin), so a request that then
    waits on Temporal holds neither a connection nor a lock meanwhile."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._session: AsyncSession | None = None

    @property
    def session(self) -> AsyncSession:
        if self._session is None:
            self._session = self._sessions()
        return self._session

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """Committed on success, rolled back on any exception; objects read stay usable after commit."""
        async with self.session.begin():
            yield self.session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
