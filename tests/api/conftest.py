"""A stack shared by one module's field-rule tests: starting a worker and the app per test costs more than
the calls themselves. The tests stay independent because each issues its own enrollment ids."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="module")
async def shared_stack(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template_path: Path, temporal_env: Any, sandbox_url: str
) -> AsyncIterator[Any]:
    from tests.support.stack import Stack

    data_dir = tmp_path_factory.mktemp("shared")
    shutil.copyfile(sqlite_template_path, data_dir / "lineup.db")
    with pytest.MonkeyPatch.context() as patch:  # as _no_env_leak does for a function-scoped stack
        for name in [name for name in os.environ if name.startswith("LINEUP_")]:
            patch.delenv(name)
        database_url = f"sqlite+aiosqlite:///{data_dir / 'lineup.db'}"
        async with Stack.running(data_dir, database_url, temporal_env, sandbox_url) as running:
            yield running
