"""The support console's fixtures: a signed-in httpx client for the HTTP rules, and for the browser tests the
stack's app served over real HTTP (uvicorn, in the test's own event loop) and Debian's chromium driven by
Playwright. Without /usr/bin/chromium the browser tests skip locally and fail under CI=true."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from bench.ports import free_port
from tests.support.temporal import serving

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_THERE = CHROMIUM.exists()  # looked at once, at import


@pytest.fixture
async def console(api: Any) -> httpx.AsyncClient:
    """The API's own client; its cookie jar holds the console's cookies."""
    http: httpx.AsyncClient = api.http
    return http


@pytest.fixture
async def served(stack: Any) -> AsyncIterator[str]:
    """The stack's app (lifespan already running) on a free port, for the browser."""
    port = free_port()
    async with serving(uvicorn.Config(stack.app, host="127.0.0.1", port=port, lifespan="off", log_level="warning")):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
async def chromium() -> AsyncIterator[Any]:
    """One headless chromium for the session (each test opens its own context: its own cookies)."""
    if not CHROMIUM_THERE:
        reason = f"{CHROMIUM} is missing; `make test` installs Debian's chromium (scripts/apt-install.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the console's browser tests need it under CI=true: {reason}")
        pytest.skip(reason)
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        # --no-sandbox: CI and the developers' machines run as root, where chromium's sandbox refuses to start.
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture
async def page(chromium: Any, served: str) -> AsyncIterator[Any]:
    context = await chromium.new_context(base_url=served, viewport={"width": 1280, "height": 420})
    try:
        yield await context.new_page()
    finally:
        await context.close()
