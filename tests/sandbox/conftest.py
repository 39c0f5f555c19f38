"""Fixtures: a sandbox app on an in-memory store and an in-process HTTP client for it."""

from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio
from fastapi import FastAPI

from sandbox.app import create_app
from sandbox.config import SandboxConfig


@pytest.fixture
def config() -> SandboxConfig:
    """Fault-free settings on an in-memory store; modules override this fixture to change them."""
    return SandboxConfig(db_path=":memory:", port_complete_seconds=60.0, fault_rate=0.0, latency_ms=0)


@pytest.fixture
def app(config: SandboxConfig) -> FastAPI:
    """A fresh sandbox app (and so a fresh store) per test."""
    return create_app(config)


@pytest_asyncio.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """HTTP client talking to the app in-process."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as http:
        yield http
    app.state.store.close()
