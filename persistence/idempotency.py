"""Rows created under a request key: a repeated external_transaction_id finds the first one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from persistence.uow import UnitOfWork


async def id_for_key(session: AsyncSession, table: Any, key: str) -> int | None:
    """The id of the row an earlier request with this key created in `table` (a table with `id` and
    `idempotency_key` columns), or None."""
    found: int | None = (await session.exec(select(table.id).where(table.idempotency_key == key))).first()
    return found


async def row_for_key(session: AsyncSession, table: Any, key: str) -> Any:
    """The whole row an earlier request with this key created in `table`, or None."""
    return (await session.exec(select(table).where(table.idempotency_key == key))).first()


async def insert_once(
    uow: UnitOfWork, table: Any, key: str | None, build: Callable[[AsyncSession], Awaitable[Any]]
) -> int | None:
    """Inserts the row `build` makes (it may refuse first), once per request key: a repeated request, or one
    racing it, answers the id of the row the first one inserted. Without a key every call inserts."""
    try:
        async with uow.transaction() as session:
            if key and (done := await id_for_key(session, table, key)):
                return done
            row = await build(session)
            session.add(row)
            await session.flush()
            inserted: int | None = row.id
            return inserted
    except IntegrityError:
        if key is None:  # no key to have collided on: not a repeated request
            raise
    async with uow.transaction() as session:  # the same request twice at once: the one that won answers
        return await id_for_key(session, table, key)
