"""The running stack's own database, opened beside it: T5 and T6 count rows in it and add the rows their
scenarios need faster than HTTP could (always said so in the figure's note)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

from sqlalchemy import func, insert, make_url, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlmodel import col

from bench.stack import Stack
from models.auth import ApiUser, Vendor
from models.settings import Settings

CHUNK = 5_000  # rows per INSERT: one statement each, small enough for either database's parameter limits


def tool_engine(url: str) -> AsyncEngine:
    """An asyncio engine on a database Lineup writes, for the bench's and the tests' own reads and bulk writes
    (the application itself runs SQLite on the synchronous engine: persistence.transaction)."""
    if url.startswith("sqlite"):
        return create_async_engine(make_url(url).set(drivername="sqlite+aiosqlite"))
    return create_async_engine(make_url(url).set(drivername="postgresql+asyncpg"))


def stack_settings(stack: Stack) -> Settings:
    """The settings the stack's processes read: its LINEUP_* environment, not the bench's."""
    given = {
        name.removeprefix("LINEUP_").lower(): value for name, value in stack.env.items() if name.startswith("LINEUP_")
    }
    return Settings(**cast(dict[str, Any], given))  # pydantic turns the strings into each field's type


@asynccontextmanager
async def stack_database(stack: Stack) -> AsyncIterator[AsyncEngine]:
    """An engine on the stack's database (its SQLite file under the stack's data dir, or its PostgreSQL),
    with the pragmas and pool Lineup itself uses."""
    engine = tool_engine(stack_settings(stack).db_url)
    try:
        yield engine
    finally:
        await engine.dispose()


async def count(engine: AsyncEngine, table: Any, *where: Any) -> int:
    async with engine.connect() as connection:
        found = await connection.scalar(select(func.count()).select_from(table).where(*where))
    return int(found or 0)


async def insert_rows(connection: AsyncConnection, table: Any, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), CHUNK):
        await connection.execute(insert(table), rows[start : start + CHUNK])


async def demo_owner(engine: AsyncEngine) -> tuple[int, int]:
    """(vendor id, API user id) of the seeded DEMO vendor's `demo.api`: the owner of the bench's tokens."""
    query = (
        select(col(Vendor.id), col(ApiUser.id))
        .join(ApiUser, col(ApiUser.vendor_id) == col(Vendor.id))
        .where(col(Vendor.code) == "DEMO", col(ApiUser.username) == "demo.api")
    )
    async with engine.connect() as connection:
        vendor_id, api_user_id = (await connection.execute(query)).one()
    if vendor_id is None or api_user_id is None:
        raise RuntimeError("the demo vendor or its API user has no id: was `lineup seed-demo` run?")
    return vendor_id, api_user_id
