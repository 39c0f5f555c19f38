"""A throwaway PostgreSQL database per stack run, and the duplicate check T7 runs against it."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

# What T7 checks, straight from the `line` table (read-only): one row, one MDN and one customer per line,
# and every line ACTIVE.
LINE_COUNTS = """
SELECT count(*) AS lines, count(mdn) AS with_mdn, count(DISTINCT mdn) AS mdns,
       count(DISTINCT customer_id) AS customers, count(*) FILTER (WHERE status = 'ACTIVE') AS active
FROM line WHERE enrollment_id = ANY($1::text[])
"""
TABLE_COUNTS = "SELECT count(*) AS lines, count(mdn) AS with_mdn, count(DISTINCT mdn) AS mdns FROM line"
DATABASE_PREFIX = "lineup_bench_"  # also how bench.machine tells the bench's backends from other work
CREATED: set[tuple[str, str]] = set()  # (admin url, database) not dropped yet: dropped on the way out


@dataclass(frozen=True)
class LineCounts:
    lines: int
    with_mdn: int
    mdns: int  # distinct
    customers: int  # distinct
    active: int


def database_url(admin_url: str, name: str) -> str:
    """Database `name` on the server of `admin_url`, as libpq and asyncpg take it."""
    parts = urlsplit(admin_url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))


def app_url(admin_url: str, name: str) -> str:
    """The `LINEUP_DATABASE_URL` of database `name` on the server of `admin_url`."""
    return database_url(admin_url, name).replace("postgresql://", "postgresql+asyncpg://", 1)


async def reachable(admin_url: str) -> str | None:
    """None when the server answers, else why not."""
    try:
        connection = await asyncpg.connect(admin_url, timeout=5)
    except (OSError, asyncpg.PostgresError) as exc:
        return f"{type(exc).__name__}: {exc}"
    await connection.close()
    return None


async def create_database(admin_url: str) -> str:
    name = f"{DATABASE_PREFIX}{secrets.token_hex(4)}"
    connection = await asyncpg.connect(admin_url)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    CREATED.add((admin_url, name))
    return name


async def drop_database(admin_url: str, name: str) -> None:
    connection = await asyncpg.connect(admin_url)
    try:
        # FORCE: a stack that was killed may have left sessions behind.
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await connection.close()
    CREATED.discard((admin_url, name))


async def drop_leftovers() -> None:
    """Drops what an interrupted run could not."""
    for admin_url, name in list(CREATED):
        await drop_database(admin_url, name)


async def line_counts(admin_url: str, name: str, enrollment_ids: list[str]) -> tuple[LineCounts, dict[str, Any]]:
    """Counts for the given lines, and for the whole table (every line any scenario created)."""
    connection = await asyncpg.connect(database_url(admin_url, name))
    try:
        mine = await connection.fetchrow(LINE_COUNTS, enrollment_ids)
        table = await connection.fetchrow(TABLE_COUNTS)
    finally:
        await connection.close()
    return LineCounts(mine["lines"], mine["with_mdn"], mine["mdns"], mine["customers"], mine["active"]), dict(table)
