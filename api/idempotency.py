"""Request keys for operations that create a record: a repeated external_transaction_id finds the first."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from api.gate import Caller


def request_key(caller: Caller, external_transaction_id: str | None) -> str | None:
    """Unique per vendor and action; None when the channel sent no external_transaction_id."""
    if not external_transaction_id:
        return None
    return f"{caller.vendor_id}:{caller.action}:{external_transaction_id}"


async def id_for_key(sessions: async_sessionmaker[AsyncSession], table: Any, key: str) -> int | None:
    """The id of the row an earlier request with this key created in `table` (it has `id` and
    `idempotency_key` columns), or None."""
    async with sessions() as session:
        found: int | None = (await session.exec(select(table.id).where(table.idempotency_key == key))).first()
        return found
