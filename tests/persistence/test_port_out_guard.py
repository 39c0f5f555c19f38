"""A held number's port-out checks counted in the database (issue 35, item 1), on SQLite and PostgreSQL: parallel
wrong guesses are counted one after another and none is checked past the limit; a locked number refuses the right
account and PIN without counting it; the lock ends after its time and the count starts afresh; wrong checks older
than the window are not counted."""

from __future__ import annotations

import asyncio
import secrets
from datetime import timedelta

from models.db import Database
from models.porting import PortOutGuard, PortOutLimits, PortOutVerdict, check_port_out
from models.types import utcnow

LIMITS = PortOutLimits(failures=5, window=timedelta(hours=24), lock=timedelta(hours=24))


def held_number() -> str:
    return f"4045{secrets.randbelow(10**6):06d}"


async def check(db: Database, number: str, *, matches: bool, after: timedelta = timedelta(0)) -> PortOutVerdict:
    """One check in a transaction of its own, `after` from now; it holds the transaction a moment, as the
    activity does while it stores the refusal, so parallel checks overlap."""
    async with db.transaction() as session:
        verdict = await check_port_out(session, number, matches=matches, limits=LIMITS, now=utcnow() + after)
        await asyncio.sleep(0.01)
        return verdict


async def test_parallel_wrong_guesses_are_counted_one_by_one_and_none_past_the_limit(db):
    number = held_number()
    verdicts = await asyncio.gather(*(check(db, number, matches=False) for _ in range(12)))
    counted = sorted(verdict.failures for verdict in verdicts)
    assert counted == [1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 5, 5]
    assert sum(not verdict.locked for verdict in verdicts) == 4  # the fifth wrong check locks; the rest: unchecked
    async with db.transaction() as session:
        row = await session.get(PortOutGuard, number)
    assert row is not None and row.failures == 5 and row.locked_until is not None
    assert row.locked_until > utcnow() + timedelta(hours=23)


async def test_a_locked_number_refuses_the_right_pin_until_the_lock_ends(db):
    number = held_number()
    for _ in range(5):
        await check(db, number, matches=False)
    assert await check(db, number, matches=True) == PortOutVerdict(False, 5, True)
    assert await check(db, number, matches=True, after=timedelta(hours=23)) == PortOutVerdict(False, 5, True)
    assert (await check(db, number, matches=True, after=timedelta(hours=24, seconds=1))).passed
    # After the lock a wrong check starts the count afresh.
    assert await check(db, number, matches=False, after=timedelta(hours=24, seconds=2)) == PortOutVerdict(
        False, 1, False
    )


async def test_wrong_checks_older_than_the_window_are_not_counted(db):
    number = held_number()
    for _ in range(4):
        await check(db, number, matches=False)
    assert await check(db, number, matches=False, after=timedelta(hours=24, seconds=1)) == PortOutVerdict(
        False, 1, False
    )
    assert (await check(db, number, matches=True, after=timedelta(hours=24, seconds=2))).passed


async def test_a_right_check_leaves_the_count_as_it_is(db):
    number = held_number()
    for _ in range(4):
        await check(db, number, matches=False)
    assert await check(db, number, matches=True) == PortOutVerdict(True, 4, False)
    assert await check(db, number, matches=False) == PortOutVerdict(False, 5, True)
