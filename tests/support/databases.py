"""Migrated, demo-seeded databases: a SQLite template copied per test, and one PostgreSQL database per run."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import pytest

from cli.accounts import seed_demo
from models import db
from models.db import Database
from models.settings import Settings

PG_HOST, PG_PORT, PG_USER, PG_ADMIN_DB = "127.0.0.1", 5432, "postgres", "test"


async def seed(url: str, data_dir: Path) -> None:
    db = Database(Settings(data_dir=data_dir), url)
    try:
        await seed_demo(db)
    finally:
        await db.dispose()


def sqlite_template(directory: Path) -> Path:
    path = directory / "template.db"
    url = f"sqlite+aiosqlite:///{path}"
    db.upgrade(url)
    asyncio.run(seed(url, directory))
    return path


def _unavailable(reason: str) -> None:
    # CI has PostgreSQL; there a missing server is a failure, not a reason to skip half the suite.
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"PostgreSQL is required under CI=true: {reason}")
    pytest.skip(f"PostgreSQL not available: {reason}")


@asynccontextmanager
async def postgres_database() -> AsyncIterator[str]:
    """A new database on the local server, migrated and seeded; dropped afterwards."""
    name = f"lineup_test_{secrets.token_hex(4)}"
    try:
        admin = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB, timeout=5)
    except (OSError, asyncpg.PostgresError) as exc:
        _unavailable(str(exc))
        raise
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = f"postgresql+asyncpg://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
        await db.upgrade_async(url)
        await seed(url, Path("/nonexistent-unused"))
        yield url
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@asynccontextmanager
async def database_at(revision: str, engine_name: str, directory: Path) -> AsyncIterator[str]:
    """A new, empty database of `engine_name` migrated up to `revision` (a migration's test fills it as the
    revision before left it, then upgrades); dropped afterwards."""
    if engine_name == "sqlite":
        url = f"sqlite+aiosqlite:///{directory / 'at_revision.db'}"
        await db.upgrade_async(url, revision)
        yield url
        return
    name = f"lineup_at_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB, timeout=5)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = f"postgresql+asyncpg://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
        await db.upgrade_async(url, revision)
        yield url
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
