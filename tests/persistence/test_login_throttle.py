"""The login throttle's claim and settle, on SQLite and PostgreSQL: attempts still being verified take a slot but
never lock; a claim beyond the slots waits for one to be settled (or gives up after `wait_seconds`); only
failures lock, and a locked login is refused at once; stale pending attempts and ended locks count as 0."""

from __future__ import annotations

import asyncio
import secrets
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from cli.accounts import create_api_user
from models.auth import ApiUser, Throttle, claim_login, settle_login
from models.db import Database, UnitOfWork
from models.types import utcnow

THROTTLE = Throttle(max_failures=3, lockout_seconds=900, wait_seconds=0.3)


@pytest.fixture
async def user(db: Database) -> Any:
    """The throttled row of a new API user."""
    username = f"api.{secrets.token_hex(4)}"
    assert await create_api_user(db, "DEMO", username, "right-pass-1", "2468")
    return col(ApiUser.username) == username


async def claim(db: Database, row: Any) -> bool:
    """A claim on a unit of work of its own, as each request has."""
    uow = UnitOfWork(db)
    try:
        return await claim_login(uow, ApiUser, row, THROTTLE)
    finally:
        await uow.close()


async def settle(db: Database, row: Any, *, ok: bool) -> None:
    uow = UnitOfWork(db)
    try:
        await settle_login(uow, ApiUser, row, THROTTLE, ok=ok)
    finally:
        await uow.close()


async def state(db: Database, row: Any) -> tuple[int, int, bool]:
    """(failed_logins, pending_logins, locked)."""
    async with db.transaction() as session:
        query = select(ApiUser.failed_logins, ApiUser.pending_logins, ApiUser.locked_until).where(row)
        failed, pending, locked_until = (await session.execute(query)).one()
    return failed, pending, locked_until is not None and locked_until > utcnow()


async def set_row(db: Database, row: Any, **values: Any) -> None:
    async with db.transaction() as session:
        await session.execute(update(ApiUser).where(row).values(**values))


async def test_a_claim_beyond_the_slots_waits_for_a_settled_one(db, user):
    assert [await claim(db, user) for _ in range(3)] == [True] * 3
    waiting = asyncio.create_task(claim(db, user))
    await asyncio.sleep(0.1)
    assert not waiting.done()
    await settle(db, user, ok=True)
    assert await waiting
    assert await state(db, user) == (0, 3, False)


async def test_a_claim_gives_up_after_wait_seconds_without_locking(db, user):
    assert [await claim(db, user) for _ in range(3)] == [True] * 3
    started = time.monotonic()
    assert not await claim(db, user)
    assert time.monotonic() - started >= THROTTLE.wait_seconds
    assert await state(db, user) == (0, 3, False)


async def test_the_failure_that_reaches_the_limit_locks_and_a_locked_claim_is_refused_at_once(db, user):
    assert [await claim(db, user) for _ in range(3)] == [True] * 3
    for _ in range(2):
        await settle(db, user, ok=False)
    assert await state(db, user) == (2, 1, False)
    await settle(db, user, ok=False)
    assert await state(db, user) == (3, 0, True)
    started = time.monotonic()
    assert not await claim(db, user)
    assert time.monotonic() - started < THROTTLE.wait_seconds


async def test_a_success_clears_the_failures_of_settled_attempts(db, user):
    assert [await claim(db, user) for _ in range(3)] == [True] * 3
    await settle(db, user, ok=False)
    await settle(db, user, ok=False)
    await settle(db, user, ok=True)
    assert await state(db, user) == (0, 0, False)


async def test_stale_pending_attempts_count_as_none(db, user):
    await set_row(db, user, pending_logins=3, pending_since=utcnow() - timedelta(seconds=THROTTLE.stale_seconds + 1))
    assert await claim(db, user)
    assert await state(db, user) == (0, 1, False)


async def test_an_ended_lock_restarts_the_failures_at_zero(db, user):
    await set_row(db, user, failed_logins=3, locked_until=utcnow() - timedelta(seconds=1))
    assert await claim(db, user)
    assert await state(db, user) == (0, 1, False)
