"""The persistence tests' Database: the test's migrated, demo-seeded database (SQLite, then PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from models.db import Database
from tests.support.app import make_settings


@pytest.fixture
async def db(db_url: str, data_dir: Path) -> AsyncIterator[Database]:
    database = Database(make_settings(data_dir, db_url))
    try:
        yield database
    finally:
        await database.dispose()
