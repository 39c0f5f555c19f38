"""Rows created under a request key: a repeated external_transaction_id finds the first one."""

from __future__ import annotations

from typing import Any

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession


async def id_for_key(session: AsyncSession, table: Any, key: str) -> int | None:
    """The id of the row an earlier request with this key created in `table` (a table with `id` and
    `idempotency_key` columns), or None."""
    found: int | None = (await session.exec(select(table.id).where(table.idempotency_key == key))).first()
    return found


async def row_for_key(session: AsyncSession, table: Any, key: str) -> Any:
    """The whole row an earlier request with this key created in `table`, or None."""
    return (await session.exec(select(table).where(table.idempotency_key == key))).first()
