"""Alembic as a library: the only path to the schema, used by the CLI, `make run` and the tests."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from alembic import command
from alembic.config import Config


def _scripts() -> Path:
    # Found, not imported: the migrations' env.py imports this package's engine, and a static import
    # back would make a cycle.
    spec = importlib.util.find_spec("migrations")
    assert spec is not None and spec.submodule_search_locations, "the migrations package is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(_scripts()))
    config.set_main_option("sqlalchemy.url", url)
    return config


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


async def upgrade_async(url: str, revision: str = "head") -> None:
    """env.py runs its own event loop, so from async code it runs on a thread."""
    await asyncio.to_thread(upgrade, url, revision)
