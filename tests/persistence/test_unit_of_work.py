"""One unit of work per request: the token read with the vendor and agent, the operation, the token claim, the
next token and the audit row in one transaction (counted here for the hottest call, update_location_coordinate)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import InvalidRequestError

from tests.builders import body


@contextmanager
def counted(engine: Any) -> Iterator[dict[str, list[str]]]:
    """The SQL statements and pool checkouts made on `engine` meanwhile."""
    seen: dict[str, list[str]] = {"statements": [], "checkouts": []}

    def on_statement(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen["statements"].append(statement.split()[0].upper())

    def on_checkout(*_args: Any) -> None:
        seen["checkouts"].append("checkout")

    event.listen(engine.sync_engine, "before_cursor_execute", on_statement)
    event.listen(engine.sync_engine.pool, "checkout", on_checkout)
    try:
        yield seen
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", on_statement)
        event.remove(engine.sync_engine.pool, "checkout", on_checkout)


async def test_update_location_coordinate_is_five_statements_in_one_transaction(api):
    """The token read with its vendor and agent, the location written, the token claimed, the next one stored,
    the audit row: one transaction, one connection, the statements in this order."""
    request = body("update_location_coordinate")
    assert (await api.call("/agent", request))["msg_code"] == "RESTAPI000"  # warm: connections, caches
    token = await api.token()
    with counted(api.db.engine) as seen:
        answer = (await api.post("/agent", request, token=token)).json()
    assert answer["msg_code"] == "RESTAPI000"
    assert seen["statements"] == ["BEGIN", "SELECT", "INSERT", "UPDATE", "INSERT", "INSERT"]
    assert len(seen["checkouts"]) == 1


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


async def test_a_statement_outside_a_transaction_is_refused(api):
    """Sessions do not autobegin: nothing can hold a connection, or SQLite's lock, between transactions."""
    session = api.db.session()
    try:
        with pytest.raises(InvalidRequestError, match="Autobegin is disabled"):
            await session.execute(text("SELECT 1"))
    finally:
        await session.close()
