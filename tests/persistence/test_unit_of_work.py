"""One unit of work per request: the token read with the vendor and agent, the operation, the token claim, the
next token and the audit row in one transaction (counted here for the hottest call, update_location_coordinate)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, make_url, text

from persistence.engine import Database
from persistence.uow import UnitOfWork
from tests.support.builders import body


@asynccontextmanager
async def traced(db: Database) -> AsyncIterator[list[tuple[int, str]]]:
    """Every statement SQLite runs meanwhile, as (connection, first word): the connections are reopened with
    SQLite's own trace on them, so what Lineup hands the driver directly is seen as well."""
    seen: list[tuple[int, str]] = []

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        label = id(dbapi_connection)
        dbapi_connection.driver_connection.set_trace_callback(lambda sql: seen.append((label, sql.split()[0])))

    event.listen(db.engine.sync_engine, "connect", on_connect)
    await db.dispose()  # the next transaction opens a traced connection
    try:
        yield seen
    finally:
        event.remove(db.engine.sync_engine, "connect", on_connect)


async def test_update_location_coordinate_is_five_statements_in_one_transaction(api):
    """The token read with its vendor and agent, the location written, the token claimed, the next one stored,
    the audit row: one transaction on one connection, the statements in this order."""
    request = body("update_location_coordinate")
    token = await api.token()
    async with traced(api.db) as seen:
        answer = (await api.post("/agent", request, token=token)).json()
    assert answer["msg_code"] == "RESTAPI000"
    assert [word for _, word in seen] == ["BEGIN", "SELECT", "INSERT", "UPDATE", "INSERT", "INSERT", "COMMIT"]
    assert len({connection for connection, _ in seen}) == 1


async def test_a_refusal_after_the_token_claims_it_and_keeps_nothing_else(api):
    """An operation that refuses after writing (an unknown agent to report the location of) leaves no row of
    its own, while its token is used and the next one works."""
    token = await api.token()
    refused = (await api.post("/agent", body("update_location_coordinate", username="nobody.here"), token=token)).json()
    assert refused["msg_code"] == "RESTAPI110" and refused["token"]
    again = (await api.post("/agent", body("update_location_coordinate"), token=token)).json()
    assert again["msg"] == "Token already used"
    assert (await api.post("/agent", body("update_location_coordinate"), token=refused["token"])).json()[
        "msg_code"
    ] == ("RESTAPI000")


async def test_a_released_unit_of_work_holds_no_transaction(api):
    """Released before an outside wait, the request's transaction is committed and SQLite's write lock free:
    another connection can take it at once."""
    uow = UnitOfWork(api.db)
    await (await uow.connection()).execute(text("SELECT 1"))
    await uow.release()
    other = sqlite3.connect(make_url(str(api.db.engine.url)).database or "", timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")  # "database is locked" while a transaction of the request is open
        other.execute("ROLLBACK")
    finally:
        other.close()
        await uow.close()
