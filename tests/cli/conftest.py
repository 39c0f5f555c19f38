"""The CLI's tests: `lineup` run as an operator runs it, on the test's copy of the seeded database."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from cli.main import app as cli

runner = CliRunner()


@pytest.fixture
def lineup(sqlite_url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Runs `lineup ARGS…` on this test's copy of the seeded database, off the event loop (it runs its own)."""
    monkeypatch.setenv("LINEUP_DATABASE_URL", sqlite_url)
    monkeypatch.setenv("LINEUP_DATA_DIR", str(data_dir))
    from models.settings import get_settings

    def invoke(*args: str) -> Result:
        get_settings.cache_clear()
        try:
            return runner.invoke(cli, list(args))
        finally:
            get_settings.cache_clear()

    return lambda *args: asyncio.to_thread(invoke, *args)
