"""One unit of work per request: the token read with the vendor and agent, the operation, the token claim, the
next token and the audit row in one transaction (counted here for the hottest call, update_location_coordinate)."""

from __future__ import annotations

import sqlite3

from sqlalchemy import make_url, text

from models.db import UnitOfWork
from tests.support.builders import body
from tests.support.statements import counted


async def test_update_location_coordinate_is_five_statements_in_one_transaction(api):
    """The token read with its vendor and agent, the location written, the token claimed, the next one stored,
    the audit row: one transaction on one connection, the statements in this order."""
    request = body("update_location_coordinate")
    token = await api.token()
    with counted() as seen:
        answer = (await api.post("/agent", request, token=token)).json()
    assert answer["msg_code"] == "RESTAPI000"
    assert seen.statements == ["BEGIN", "SELECT", "INSERT", "UPDATE", "INSERT", "INSERT", "COMMIT"]
    assert len(seen.connections) == 1


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
