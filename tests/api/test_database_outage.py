"""A database that cannot be reached is an outage, answered as Temporal's and the carrier's are: `RESTAPI110`
"The database is unavailable, please try again later" (HTTP 503 in `rest` mode, 200 in `legacy`), never a
bug's 500 "Unexpected error"."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import exc as sql

from models.db import database_unavailable
from tests.support.builders import body
from tests.support.database_outage import UNREACHABLE_DB, database_at

UNOPENABLE_SQLITE = "sqlite+aiosqlite:////nonexistent-dir/lineup.db"
DOWN = {
    "msg_code": "RESTAPI110",
    "msg": "Error occurred",
    "errors": ["The database is unavailable, please try again later"],
}
CALLS = [
    ("/authenticate", {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}),
    ("/agent", body("update_location_coordinate")),
    ("/customer", body("line_inquiry", enrollment_id="E1234567")),
    ("/ops", body("list_stuck_enrollments", agent_id="demo.support")),
]


@pytest.mark.parametrize(
    ("settings_overrides", "status"), [({"http_status": "legacy"}, 200), ({"http_status": "rest"}, 503)]
)
@pytest.mark.parametrize("url", [UNREACHABLE_DB, UNOPENABLE_SQLITE], ids=["postgresql-refused", "sqlite-unopenable"])
async def test_operations_answer_the_database_is_unavailable(api, url, status):
    async with database_at(api, url):
        answers = [await api.post(path, request, token="a-token-nobody-can-check") for path, request in CALLS]
        health = await api.http.get("/healthz")
    assert [(answer.status_code, answer.json()) for answer in answers] == [(status, DOWN)] * len(CALLS)
    assert health.status_code == 200  # the process is up; /readyz says what is missing


@asynccontextmanager
async def silent_server():
    """A host that takes TCP connections and never says a word (a stalled server, a half-open network path):
    yields its PostgreSQL URL."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:{server.sockets[0].getsockname()[1]}/silent"
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("settings_overrides", [{"db_connect_timeout_seconds": 0.5, "http_status": "rest"}])
async def test_a_database_that_accepts_but_never_answers_is_an_outage_after_the_connect_timeout(api):
    async with silent_server() as url, database_at(api, url):
        # Bounded well above the setting, far below asyncpg's own 60 s.
        answer = await asyncio.wait_for(api.post("/agent", body("update_location_coordinate"), token="t"), 10)
    assert (answer.status_code, answer.json()) == (503, DOWN)


async def test_the_api_answers_again_once_the_database_is_back(api):
    token = await api.token()  # minted while the database is there
    async with database_at(api, UNREACHABLE_DB):
        assert (await api.post("/agent", body("update_location_coordinate"), token=token)).json() == DOWN
    assert (await api.call("/agent", body("update_location_coordinate")))["msg_code"] == "RESTAPI000"


def wrapped(message: str) -> sql.OperationalError:
    return sql.OperationalError("SELECT 1", {}, sqlite3.OperationalError(message))


def test_a_broken_statement_is_not_an_outage():
    assert database_unavailable(wrapped("unable to open database file"))
    assert database_unavailable(wrapped("database is locked"))
    assert not database_unavailable(wrapped("no such table: line"))  # a bug, answered as one (500)
    assert not database_unavailable(wrapped('near "SELEC": syntax error'))
    assert not database_unavailable(ConnectionRefusedError("raised by something other than the database driver"))
