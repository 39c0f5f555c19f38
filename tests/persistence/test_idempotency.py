"""Rows inserted once per request key (`insert_once`), on SQLite and PostgreSQL: a repeated key answers the first
row's id, a request that loses the race to the same key answers the winner's, and no key inserts every time."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlmodel import func, select

from models.agents import Signature
from models.auth import Agent
from models.db import Database, Session, UnitOfWork, insert_once
from tests.support.app import make_settings


@asynccontextmanager
async def unit(db: Database) -> AsyncIterator[UnitOfWork]:
    uow = UnitOfWork(db)
    try:
        yield uow
    finally:
        await uow.close()


async def insert(db: Database, key: str | None, build: Any = None) -> int | None:
    async with unit(db) as uow:
        return await insert_once(uow, Signature, key, build or (lambda session: signature(session, key)))


async def signature(session: Session, key: str | None) -> Signature:
    agent = (await session.exec(select(Agent).where(Agent.username == "demo.agent"))).one()
    assert agent.id is not None
    return Signature(
        idempotency_key=key,
        vendor_id=agent.vendor_id,
        agent_id=agent.id,
        media_type="image/png",
        sha256="0" * 64,
        image=b"png",
    )


async def count(db: Database, key: str | None) -> int:
    async with unit(db) as uow, uow.transaction() as session:
        found: int = (await session.exec(select(func.count()).where(Signature.idempotency_key == key))).one()
    return found


async def test_a_repeated_key_answers_the_first_rows_id(db):
    key = secrets.token_hex(8)
    first, again = await insert(db, key), await insert(db, key)
    assert first is not None and again == first and await count(db, key) == 1


async def test_a_request_that_loses_the_race_answers_the_winners_id(postgres_url, data_dir):
    """On PostgreSQL another request can insert between this one's key check and its insert (SQLite takes one
    write transaction at a time, across processes too, so there no request can come between)."""
    db = Database(make_settings(data_dir, postgres_url))
    try:
        key = secrets.token_hex(8)
        winner: list[int | None] = []

        async def build(session: Session) -> Signature:
            winner.append(await asyncio.create_task(insert(db, key)))  # a request of its own, as another would be
            return await signature(session, key)

        assert await insert(db, key, build) == winner[0] is not None
        assert await count(db, key) == 1
    finally:
        await db.dispose()


async def test_a_transaction_inside_another_of_the_same_task_is_refused_not_waited_for(sqlite_url, data_dir):
    """On SQLite a task that opened a second transaction inside its first would wait for itself forever."""
    db = Database(make_settings(data_dir, sqlite_url))
    try:
        async with db.transaction():
            with pytest.raises(RuntimeError, match="inside another one of the same task"):
                async with db.transaction():
                    pass
    finally:
        await db.dispose()


async def test_without_a_key_every_call_inserts(db):
    before = await count(db, None)
    ids = {await insert(db, None) for _ in range(2)}
    assert len(ids) == 2 and await count(db, None) == before + 2
