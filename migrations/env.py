"""Alembic environment: the schema is SQLModel.metadata, the URL comes from Settings (or the caller)."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import migrations.tables  # noqa: F401  (registers every table on the metadata)
from models.db import postgres_engine, sqlite_engine
from models.settings import get_settings

config = context.config
target_metadata = SQLModel.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_on_postgres(url: str) -> None:
    engine = postgres_engine(url, get_settings())
    async with engine.connect() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


def _run_from_settings() -> None:
    settings = get_settings()
    url = config.get_main_option("sqlalchemy.url") or settings.db_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = sqlite_engine(url, foreign_keys=False)
        with engine.connect() as connection:
            _run(connection)
        engine.dispose()
    else:
        asyncio.run(_run_on_postgres(url))


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    _run_from_settings()
