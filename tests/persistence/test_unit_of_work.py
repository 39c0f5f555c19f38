"""One unit of work per request: the token check, the agent lookup, the operation and the audit row share
one session, in few, short transactions (counted here for the hottest call, update_location_coordinate)."""

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


async def test_update_location_coordinate_is_five_statements_in_three_transactions(api):
    """Token consumed and the next one issued with the vendor and agent read (one transaction), the location
    written (one), the audit row after the answer (one)."""
    request = body("update_location_coordinate")
    assert (await api.call("/agent", request))["msg_code"] == "RESTAPI000"  # warm: connections, caches
    token = await api.token()
    with counted(api.db.engine) as seen:
        answer = (await api.post("/agent", request, token=token)).json()
    assert answer["msg_code"] == "RESTAPI000"
    assert seen["statements"] == ["UPDATE", "INSERT", "SELECT", "INSERT", "INSERT"]
    assert len(seen["checkouts"]) == 3


async def test_a_statement_outside_a_transaction_is_refused(api):
    """Sessions do not autobegin: nothing can hold a connection, or SQLite's lock, between transactions."""
    uow = api.db.unit_of_work()
    try:
        with pytest.raises(InvalidRequestError, match="Autobegin is disabled"):
            await uow.session.execute(text("SELECT 1"))
    finally:
        await uow.close()
