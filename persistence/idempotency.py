"""Rows created under a request key: a repeated external_transaction_id finds the first one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped
from sqlmodel import SQLModel, col, select

from persistence.transaction import DbSession
from persistence.uow import UnitOfWork


class Keyed(Protocol):
    """A table whose rows carry the request key they were made under."""

    id: int | None
    idempotency_key: str | None


K = TypeVar("K", bound=SQLModel)


def _key_column(table: type[SQLModel]) -> Mapped[str | None]:
    column: Mapped[str | None] = col(getattr(table, "idempotency_key"))  # noqa: B009 — each keyed table has it
    return column


async def id_for_key(session: DbSession, table: type[SQLModel], key: str) -> int | None:
    """The id of the row an earlier request with this key created in `table`, or None."""
    found: int | None = (
        await session.exec(select(col(getattr(table, "id"))).where(_key_column(table) == key))  # noqa: B009
    ).first()
    return found


async def row_for_key(session: DbSession, table: type[K], key: str) -> K | None:
    """The whole row an earlier request with this key created in `table`, or None."""
    return (await session.exec(select(table).where(_key_column(table) == key))).first()


async def insert_once(
    uow: UnitOfWork, table: type[SQLModel], key: str | None, build: Callable[[DbSession], Awaitable[Keyed]]
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
