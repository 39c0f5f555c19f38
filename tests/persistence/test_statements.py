"""The per-call statements run on the driver (persistence.core): inside the transaction SQLAlchemy holds, their
values stored and read as the ORM stores and reads them, their errors raised as SQLAlchemy raises them. On both
engines."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

import pytest
import sqlmodel
from sqlalchemy import bindparam, insert, select
from sqlalchemy.exc import IntegrityError

from models.tables.audit import AuditEntry
from persistence.core import Read, Write, table
from persistence.engine import Database
from persistence.uow import UnitOfWork

AUDIT = table("audit_log")
RECORD = Write(insert(AUDIT))


class Stamp(NamedTuple):
    at: datetime
    http_status: int


STAMP = Read(select(AUDIT.c.at, AUDIT.c.http_status).where(AUDIT.c.request_id == bindparam("request")), Stamp._make)
AT = datetime(2026, 11, 24, 3, 4, 5, 678901, tzinfo=UTC)


def row(request: str) -> dict[str, object]:
    return {
        "request_id": request,
        "at": AT,
        "path": "/agent",
        "action": None,
        "vendor_id": None,
        "api_user_id": None,
        "agent_username": None,
        "msg_code": "RESTAPI000",
        "http_status": 200,
        "duration_ms": 3,
    }


async def stored(db: Database, request: str) -> AuditEntry | None:
    async with db.transaction() as session:
        return (await session.exec(sqlmodel.select(AuditEntry).where(AuditEntry.request_id == request))).first()


async def test_a_write_on_the_driver_rolls_back_with_its_transaction(db: Database):
    """The driver's statement is inside the transaction (PostgreSQL's adapter begins it lazily: a statement
    handed to the driver first must begin it, or it would commit on its own)."""
    uow = UnitOfWork(db)
    assert await RECORD.run(await uow.connection(), row("rolled-back")) == 1
    await uow.rollback()
    await uow.close()
    assert await stored(db, "rolled-back") is None


async def test_a_write_on_the_driver_commits_with_the_orm_work_of_its_transaction(db: Database):
    uow = UnitOfWork(db)
    async with uow.transaction() as session:
        await RECORD.run(await uow.connection(), row("driver"))
        session.add(AuditEntry.model_validate({**row("orm"), "http_status": 201}))
    await uow.close()
    assert (await stored(db, "driver")) is not None and (await stored(db, "orm")) is not None


async def test_values_are_stored_and_read_as_the_orm_stores_and_reads_them(db: Database):
    uow = UnitOfWork(db)
    await RECORD.run(await uow.connection(), row("typed"))
    assert await STAMP.rows(await uow.connection(), {"request": "typed"}) == [Stamp(AT, 200)]
    await uow.commit()
    await uow.close()
    entry = await stored(db, "typed")
    assert entry is not None and entry.at == AT and entry.at.tzinfo is not None


async def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(db: Database):
    tokens = Write(insert(table("api_token")))
    taken = {
        "token_hash": "0" * 64,
        "vendor_id": 999_999,
        "api_user_id": 999_999,
        "login_log_id": None,
        "issued_at": AT,
        "expires_at": AT,
    }
    uow = UnitOfWork(db)
    with pytest.raises(IntegrityError):  # no such vendor
        await tokens.run(await uow.connection(), taken)
    await uow.close()


def test_a_statement_missing_a_value_is_refused_when_compiled():
    """A column default would be computed by SQLAlchemy's execution, which the driver path skips: every value
    must be given, and the first run says which are missing."""
    from sqlalchemy.dialects import sqlite

    from persistence.core import _Compiled

    with pytest.raises(ValueError, match="needs values for"):
        _Compiled.of(insert(AUDIT), sqlite.dialect(), ["request_id"])
