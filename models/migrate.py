"""Alembic as a library: the only path to the schema, used by the CLI, `make run` and the tests."""

from __future__ import annotations

import asyncio
from pathlib import Path

import migrations
from alembic import command
from alembic.config import Config

SCRIPTS = Path(migrations.__file__).parent


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.set_main_option("sqlalchemy.url", url)
    return config


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


async def upgrade_async(url: str, revision: str = "head") -> None:
    """env.py runs its own event loop, so from async code it runs on a thread."""
    await asyncio.to_thread(upgrade, url, revision)
