"""The clients talk to a Lineup stack (API, worker, Temporal, sandbox) served on a real socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.served import served


@pytest.fixture
async def lineup_url(stack: Any) -> AsyncIterator[str]:
    async with served(stack.app) as url:
        yield url
