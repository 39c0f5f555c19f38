"""Shared fixtures: settings on a temp data dir, a migrated and seeded template database (SQLite and
PostgreSQL), the API in-process over ASGI, and tokens."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.databases import postgres_database, sqlite_template

# Fixtures shared across directories live in tests/support and are registered here.
pytest_plugins = ["tests.support.exit_guard", "tests.support.mail_relay", "tests.support.workflow_runs"]


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """A field rule's good value is often built at random (a fresh IMEI or ICCID): named by its value, a case
    would have another id in each xdist worker, and the workers would refuse to share the run."""
    return "good" if argname == "good" else None


@pytest.fixture(scope="session")
def sqlite_template_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sqlite_template(tmp_path_factory.mktemp("template"))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def sqlite_url(sqlite_template_path: Path, data_dir: Path) -> str:
    """A fresh copy of the migrated, demo-seeded database for this test."""
    target = data_dir / "lineup.db"
    shutil.copyfile(sqlite_template_path, target)
    return f"sqlite+aiosqlite:///{target}"


@pytest.fixture(scope="session")
async def postgres_url() -> AsyncIterator[str]:
    async with postgres_database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, sqlite_url: str) -> str:
    """Persistence tests run on both engines."""
    if request.param == "sqlite":
        return sqlite_url
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def engine_name(request: pytest.FixtureRequest) -> str:
    """For tests that make their own database: requesting PostgreSQL skips, or fails under CI, without it."""
    if request.param == "postgresql":
        request.getfixturevalue("postgres_url")
    name: str = request.param
    return name


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {}


@pytest.fixture
def settings(data_dir: Path, sqlite_url: str, settings_overrides: dict[str, Any]) -> Any:
    from tests.support.app import make_settings

    return make_settings(data_dir, sqlite_url, **settings_overrides)


@pytest.fixture
async def api(settings: Any) -> AsyncIterator[Any]:
    from tests.support.app import ApiClient

    async with ApiClient.running(settings) as client:
        yield client


@pytest.fixture(autouse=True)
def _no_env_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests build Settings explicitly; a developer's LINEUP_* variables must not change them."""
    for name in list(os.environ):
        if name.startswith("LINEUP_"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[Any]:
    from tests.support.temporal import dev_server

    async with dev_server() as env:
        yield env


@pytest.fixture(scope="session")
def sandbox_smtp_port() -> int:
    """Where the session's SMTP sink listens (a free port, so a running `make run` is never in the way)."""
    from bench.ports import free_port

    return free_port()


@pytest.fixture(scope="session")
async def sandbox_url(tmp_path_factory: pytest.TempPathFactory, sandbox_smtp_port: int) -> AsyncIterator[str]:
    from tests.support.temporal import sandbox_server

    directory = tmp_path_factory.mktemp("sandbox")
    async with sandbox_server(directory, smtp_port=sandbox_smtp_port, port_complete_seconds=4) as url:
        yield url


@pytest.fixture
async def stack(
    data_dir: Path,
    sqlite_url: str,
    temporal_env: Any,
    sandbox_url: str,
    sandbox_smtp_port: int,
    settings_overrides: dict[str, Any],
) -> AsyncIterator[Any]:
    """API, worker, Temporal and sandbox wired together, on a task queue of this test's own."""
    from tests.support.stack import Stack

    overrides = {"smtp_port": sandbox_smtp_port, **settings_overrides}  # a test may name another relay
    async with Stack.running(data_dir, sqlite_url, temporal_env, sandbox_url, **overrides) as running:
        yield running


@pytest.fixture
async def time_skipping() -> AsyncIterator[Any]:
    """A fresh time-skipping test server per test: its skipped clock is global to the server."""
    from temporalio.testing import WorkflowEnvironment

    from api.temporal import register
    from bench.ports import free_port
    from tests.support.temporal import STARTUP, venv_binary
    from tests.support.workflow_runs import RunRecorder

    env = await WorkflowEnvironment.start_time_skipping(
        port=free_port(),  # not the SDK's pick from the ephemeral range, which another process may take first
        interceptors=[RunRecorder()],  # the every-workflow guard: which workflows the tests run alone
        test_server_existing_path=venv_binary("temporal-test-server"),
        test_server_startup_timeout=STARTUP,
    )
    try:
        await register(env.client, env.client.namespace)  # a workflow setting an unknown one would stall
        yield env
    finally:
        # No settling sleep after it (sdk-python#300 aborts an interpreter at exit, not a running one): the
        # exit guard (tests.support.exit_guard) leaves through os._exit, so a second per test is not spent.
        await env.shutdown()
