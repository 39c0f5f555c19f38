"""One unit of work per request: the token read with the vendor and agent, the operation, the token claim, the
next token and the audit row in one transaction (counted here for the hottest call, update_location_coordinate)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import make_url, text
from sqlalchemy.exc import OperationalError

from models.db import UnitOfWork
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body
from tests.support.statements import counted


async def test_update_location_coordinate_is_one_transaction_of_five_statements_on_sqlite(api):
    """The token read with its vendor and agent and claimed at once, the location written, the next token stored,
    the audit row: one transaction on one connection, the statements in this order."""
    request = body("update_location_coordinate")
    token = await api.token()
    with counted() as seen:
        answer = (await api.post("/agent", request, token=token)).json()
    assert answer["msg_code"] == "RESTAPI000"
    assert seen.statements == ["BEGIN", "SELECT", "UPDATE", "INSERT", "INSERT", "INSERT", "COMMIT"]
    assert len(seen.connections) == 1


async def test_update_location_coordinate_is_five_round_trips_on_postgresql(data_dir, postgres_url):
    """On PostgreSQL the token's read and claim are one statement (a data-modifying CTE), and so are the next token
    and the audit row: BEGIN, the token, the location, the token and audit, COMMIT (the floor of ../shared/bench
    makes six)."""
    async with ApiClient.running(make_settings(data_dir, postgres_url)) as api:
        token = await api.token()
        with counted() as seen:
            answer = (await api.post("/agent", body("update_location_coordinate"), token=token)).json()
        assert answer["msg_code"] == "RESTAPI000"
        assert seen.statements == ["BEGIN", "WITH", "INSERT", "WITH", "COMMIT"], seen.texts
        assert len(seen.connections) == 1
        # The chain goes on: the answer's token was stored, the presented one used.
        again = (await api.post("/agent", body("update_location_coordinate"), token=token)).json()
        assert again["msg"] == "Token already used"
        assert (await api.post("/agent", body("update_location_coordinate"), token=answer["token"])).json()[
            "msg_code"
        ] == "RESTAPI000"


@pytest.fixture
async def api_on_both(data_dir, db_url) -> AsyncIterator[ApiClient]:
    """The API on SQLite, then on PostgreSQL (db_url's engines)."""
    async with ApiClient.running(make_settings(data_dir, db_url)) as client:
        yield client


async def test_a_refusal_after_the_token_claims_it_and_keeps_nothing_else(api_on_both):
    """An operation that refuses after writing (an unknown agent to report the location of) leaves no row of
    its own, while its token is used and the next one works: the claim made with the read went with the
    rollback, and the committing transaction made it again."""
    api = api_on_both
    token = await api.token()
    refused = (await api.post("/agent", body("update_location_coordinate", username="nobody.here"), token=token)).json()
    assert refused["msg_code"] == "RESTAPI110" and refused["token"]
    again = (await api.post("/agent", body("update_location_coordinate"), token=token)).json()
    assert again["msg"] == "Token already used"
    assert (await api.post("/agent", body("update_location_coordinate"), token=refused["token"])).json()[
        "msg_code"
    ] == ("RESTAPI000")


async def test_a_unit_of_work_committed_before_a_wait_holds_no_transaction(api):
    """Committed before an outside wait (its one named step), the request's transaction is over and SQLite's
    write lock free: another connection can take it at once."""
    uow = UnitOfWork(api.db)
    await (await uow.session()).rows(text("SELECT 1"))
    await uow.commit_before_wait()
    assert uow.commits == 1 and not uow.open
    assert api.db.engine is not None
    other = sqlite3.connect(make_url(str(api.db.engine.url)).database or "", timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")  # "database is locked" while a transaction of the request is open
        other.execute("ROLLBACK")
    finally:
        other.close()
        await uow.close()


async def test_plan_list_reads_before_it_takes_the_write_lock_on_sqlite(api):
    """An action declared reads_only (issue 36): the token and the plans are read in a deferred transaction that
    takes no write turn; the claim, the next token and the audit row are one short write at the end."""
    token = await api.token()
    with counted() as seen:
        answer = (await api.post("/plan", body("plan_list"), token=token)).json()
    assert answer["msg_code"] == "RESTAPI000" and answer["token"]
    reads, write = ["BEGIN", "SELECT", "SELECT"], ["BEGIN", "UPDATE", "INSERT", "INSERT", "COMMIT"]
    assert seen.statements == reads + write, seen.texts
    assert "BEGIN DEFERRED" in seen.texts[0] and "BEGIN IMMEDIATE" in seen.texts[3]
    # The chain goes on as for any call.
    assert (await api.post("/plan", body("plan_list"), token=token)).json()["msg"] == "Token already used"
    assert (await api.post("/plan", body("plan_list"), token=answer["token"])).json()["msg_code"] == "RESTAPI000"


async def test_a_reading_transaction_cannot_write_and_leaves_its_connection_writable(api):
    """A reader is query-only on SQLite (a write fails at once instead of taking the lock unasked); the connection
    it leaves in the pool writes again for the next transaction."""
    with pytest.raises(OperationalError, match="readonly"):
        async with api.db.transaction(write=False) as session:
            await session.run(text("UPDATE vendor SET name = name"))
    async with api.db.transaction() as session:
        assert await session.run(text("UPDATE vendor SET name = name")) >= 1
