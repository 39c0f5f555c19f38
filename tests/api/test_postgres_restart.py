"""A PostgreSQL restart under requests (issue 27, finding 4): on a server this test starts and SIGKILLs (never
the shared one), every request while it is down is the outage answer — `RESTAPI110` "The database is
unavailable, please try again later", HTTP 503 in `rest` mode — never a 500; connections the restart killed are
dropped from the pool, and the requests after it succeed."""

from __future__ import annotations

import asyncio
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from models import db
from soak import postgres
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body
from tests.support.databases import seed

DOWN = ["The database is unavailable, please try again later"]


class Server:
    """The test's own PostgreSQL, started (and SIGKILLed) by the test."""

    def __init__(self, cluster: postgres.Cluster) -> None:
        self.cluster = cluster
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        quiet = asyncio.subprocess.DEVNULL
        self.process = await asyncio.create_subprocess_exec(*self.cluster.command(), stdout=quiet, stderr=quiet)
        deadline = asyncio.get_running_loop().time() + 30
        while True:
            try:
                await (await asyncpg.connect(self.cluster.admin_url, timeout=2)).close()
                return
            except (OSError, asyncpg.PostgresError):
                assert asyncio.get_running_loop().time() < deadline, "the test's PostgreSQL did not start"
                await asyncio.sleep(0.2)

    async def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()


def reachable_directory() -> Path:
    """A directory of its own that the postgres user can reach (pytest's tmp_path is root's alone)."""
    home = Path(tempfile.mkdtemp(prefix="lineup-pg-"))
    home.chmod(0o755)
    (home / "logs").mkdir()
    return home


@pytest.fixture
async def private_postgres() -> AsyncIterator[tuple[Server, str]]:
    home = reachable_directory()
    server = Server(postgres.create(home))
    await server.start()
    try:
        admin = await asyncpg.connect(server.cluster.admin_url)
        await admin.execute("CREATE DATABASE lineup")
        await admin.close()
        url = f"postgresql+asyncpg://postgres@127.0.0.1:{server.cluster.port}/lineup"
        await db.upgrade_async(url)
        await seed(url, home)
        yield server, url
    finally:
        await server.kill()
        shutil.rmtree(home, ignore_errors=True)


async def location(api: Any, token: str) -> Any:
    return await api.post("/agent", body("update_location_coordinate"), token=token)


@pytest.mark.parametrize(("mode", "down_status"), [("legacy", 200), ("rest", 503)])
async def test_a_postgresql_restart_is_answered_as_an_outage_and_then_served(
    private_postgres, tmp_path, mode, down_status
):
    server, url = private_postgres
    settings = make_settings(tmp_path / "api", url, http_status=mode, db_pool_size=4)
    async with ApiClient.running(settings) as api:
        tokens = [await api.token() for _ in range(12)]
        warm = await asyncio.gather(*(location(api, token) for token in tokens[:4]))  # the pool's connections used
        assert [answer.json()["msg_code"] for answer in warm] == ["RESTAPI000"] * 4
        await server.kill()
        down = await asyncio.gather(*(location(api, token) for token in tokens[4:8]))
        assert [(answer.status_code, answer.json()["errors"]) for answer in down] == [(down_status, DOWN)] * 4
        await server.start()
        after = [await location(api, token) for token in tokens[8:]]
    assert [answer.json()["msg_code"] for answer in after] == ["RESTAPI000"] * 4, [a.json() for a in after]
