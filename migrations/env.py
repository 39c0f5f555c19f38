"""Alembic environment: the schema is SQLModel.metadata, the URL comes from Settings (or the caller)."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import models.tables.all  # noqa: F401  (registers every table on the metadata)
from models.settings import get_settings
from persistence.engine import make_engine

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


async def _run_async() -> None:
    url = config.get_main_option("sqlalchemy.url") or None
    engine = make_engine(get_settings(), url)
    async with engine.connect() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    asyncio.run(_run_async())
