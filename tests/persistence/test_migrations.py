"""Alembic is the only path to the schema: it upgrades an empty database on both engines, and the
result matches the SQLModel tables exactly (no drift between models and migrations)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlmodel import SQLModel

import models.tables.all  # noqa: F401
from models.settings import Settings
from persistence import migrate
from persistence.engine import make_engine
from tests.support.databases import PG_ADMIN_DB, PG_HOST, PG_PORT, PG_USER


@asynccontextmanager
async def empty_database(engine_name: str, tmp_path) -> AsyncIterator[str]:
    if engine_name == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    name = f"lineup_empty_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+asyncpg://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def _diff(connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    differences: list[Any] = compare_metadata(context, SQLModel.metadata)
    return differences


async def test_migrations_upgrade_an_empty_database_to_the_models(engine_name, tmp_path):
    async with empty_database(engine_name, tmp_path) as url:
        await migrate.upgrade_async(url)
        engine = make_engine(Settings(data_dir=tmp_path), url)
        try:
            async with engine.connect() as connection:
                tables = await connection.run_sync(lambda c: set(inspect(c).get_table_names()))
                drift = await connection.run_sync(_diff)
        finally:
            await engine.dispose()
    assert set(SQLModel.metadata.tables) <= tables
    assert "alembic_version" in tables
    assert drift == []
