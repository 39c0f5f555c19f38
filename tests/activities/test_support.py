"""SupportActivities with ActivityEnvironment on the database: the sweep finds the orders intake left behind
(only once past the grace), puts back a retry whose signal never left, and purges spent tokens."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col, select
from temporalio.testing import ActivityEnvironment

from activities.support import SupportActivities
from models.auth import ApiToken, digest
from models.enrollment.lines import Line, LineStatus
from models.support import LeftBehind, Sweep
from models.types import utcnow
from tests.support.lines import stored_line
from tests.support.received import order_of, received

NOW = Sweep(grace_seconds=0)


@pytest.fixture
def activities(db, cipher) -> SupportActivities:
    return SupportActivities(db, cipher)


async def test_left_behind_finds_the_orders_intake_stored_once_past_the_grace(api, activities):
    first, _ = await received(api, {}, {})
    [second] = await received(api, {})
    assert await ActivityEnvironment().run(activities.left_behind, Sweep(grace_seconds=3600)) == LeftBehind()
    found = await ActivityEnvironment().run(activities.left_behind, NOW)
    orders = [await order_of(api.db, first), await order_of(api.db, second)]
    assert sorted(found.orders, key=lambda order: order.order_id) == sorted(orders, key=lambda order: order.order_id)


async def test_a_retry_whose_signal_never_left_is_stuck_again(api, activities):
    [enrollment_id] = await received(api, {})
    async with api.db.transaction() as session:  # support's claim, then the API died before the signal
        claimed = update(Line).where(col(Line.enrollment_id) == enrollment_id)
        await session.execute(claimed.values(status=LineStatus.RETRYING, status_since=utcnow() - timedelta(hours=1)))
    await ActivityEnvironment().run(activities.left_behind, Sweep(grace_seconds=60))
    assert (await stored_line(api, enrollment_id)).status == LineStatus.STUCK


async def test_purge_tokens_deletes_those_spent_before_the_retention(api, activities):
    spent, fresh = await api.token(), await api.token()
    async with api.db.transaction() as session:
        used = update(ApiToken).where(col(ApiToken.token_hash) == digest(spent))
        await session.execute(used.values(used_at=utcnow() - timedelta(hours=25)))
    assert await ActivityEnvironment().run(activities.purge_tokens, Sweep(token_retention_hours=24)) >= 1
    async with api.db.transaction() as session:
        left = set((await session.exec(select(ApiToken.token_hash))).all())
    assert digest(spent) not in left and digest(fresh) in left
