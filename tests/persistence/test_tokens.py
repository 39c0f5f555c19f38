"""Single use under concurrency, on SQLite and PostgreSQL: of 20 uses of one token exactly one passes."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import select

from models import auth
from models.auth import ApiUser
from models.db import UnitOfWork
from models.envelope import LineupError

CONCURRENT_USES = 20


@pytest.mark.parametrize("at_once", [True, False], ids=["read-and-claimed", "claimed-after-the-read"])
async def test_concurrent_uses_of_one_token_let_exactly_one_through(db, at_once):
    """Read and claimed in one go (the dispatcher's way; one statement on PostgreSQL), or claimed again after the
    read (a transaction rolled back takes its claim with it: the committing one claims it anew)."""
    async with db.transaction() as transaction:
        user = (await transaction.exec(select(ApiUser).where(ApiUser.username == "demo.api"))).one()
        assert user.id is not None
        owner = auth.TokenOwner(vendor_id=user.vendor_id, api_user_id=user.id, login_log_id=None)
        token = await auth.issue(transaction, owner, 900)

    async def use() -> str:
        uow = UnitOfWork(db)
        try:
            transaction = await uow.session()
            presented = await auth.present(transaction, token, username=None, claim=at_once)
            if not at_once:
                await auth.claim(transaction, presented.hashed)
            await uow.commit()
            return "accepted"
        except LineupError as refusal:
            return refusal.msg
        finally:
            await uow.close()

    outcomes = await asyncio.gather(*(use() for _ in range(CONCURRENT_USES)))
    assert sorted(outcomes) == ["Token already used"] * (CONCURRENT_USES - 1) + ["accepted"]


async def test_concurrent_requests_with_one_token_through_the_api(api):
    from tests.support.builders import body

    token = await api.token()
    answers = await asyncio.gather(
        *(api.post("/agent", body("update_location_coordinate"), token=token) for _ in range(CONCURRENT_USES))
    )
    codes = sorted(a.json()["msg_code"] for a in answers)
    assert codes == ["RESTAPI000"] + ["RESTAPI001"] * (CONCURRENT_USES - 1)
