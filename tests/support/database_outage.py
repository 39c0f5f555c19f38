"""A database that cannot be reached: its URL, and the app's Database pointed at one for a block."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from models.db import Database

UNREACHABLE_DB = "postgresql+asyncpg://postgres@127.0.0.1:1/gone"


@asynccontextmanager
async def database_at(api: Any, url: str) -> AsyncIterator[None]:
    """The app's Database pointed at `url` for the block, as a cut connection or a lost volume would."""
    resources = api.app.state.resources
    unreachable = Database(resources.settings, url)
    api.app.state.resources = replace(resources, db=unreachable)
    try:
        yield
    finally:
        api.app.state.resources = resources
        await unreachable.dispose()
