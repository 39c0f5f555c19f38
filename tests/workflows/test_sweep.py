"""The sweep: an order stored while Temporal was away, a mail left QUEUED and spent tokens are found by the
`lineup-sweep` schedule's workflow, which starts what never started and purges what nobody can use."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col, select
from temporalio.service import RPCError, RPCStatusCode

from api.temporal import ensure_sweep_schedule, sweep_schedule_id
from models.auth import ApiToken
from models.enrollment.lines import Pacing
from models.mail import MailOutbox
from models.support import Sweep
from models.types import utcnow
from tests.support.builders import body, create, line
from tests.support.left_behind import created_while_temporal_was_away, settings_of, sweep_now, while_temporal_is_away
from tests.support.lines import lines_by_status, wait_for


async def test_an_order_stored_while_temporal_was_away_is_started_by_the_sweep(stack):
    ids = await created_while_temporal_was_away(stack)
    assert set((await lines_by_status(stack, ids)).values()) == {"RECEIVED"}
    young = await sweep_now(stack, Sweep(grace_seconds=3600, token_retention_hours=24, pacing=Pacing()))
    assert young.enrollments_started == 0  # within the grace the request itself may still be starting it

    report = await sweep_now(stack)
    assert report.enrollments_started == 1  # one order, both of its lines
    assert set((await wait_for(stack, ids, {"ACTIVE"})).values()) == {"ACTIVE"}
    again = await sweep_now(stack)
    assert again.enrollments_started == 0  # nothing is RECEIVED any more


async def test_a_repeated_create_after_the_sweep_started_the_order_answers_the_same_lines(stack):
    parent, second = await created_while_temporal_was_away(stack)
    await sweep_now(stack)
    await wait_for(stack, [parent, second], {"ACTIVE"})
    repeated = await stack.call("/customer", create(parent, line(parent), line(second)))
    assert repeated["msg_code"] == "RESTAPI000", repeated
    assert {entry["data"]["enrollment_id"] for entry in repeated["data"]} == {parent, second}


async def test_a_mail_left_queued_is_delivered_by_the_sweep(stack):
    """Issue 19, finding 9: the outbox row is committed before Temporal is asked, so with Temporal away the
    channel hears "queued" (not an outage) and the sweep sends the mail once Temporal is back."""
    to = f"left.{secrets.token_hex(5)}@example.com"
    answer = await while_temporal_is_away(stack, "/mail", body("send", receiver_name=["Ada"], receiver_email=[to]))
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", "Mail queued for delivery"), answer
    assert "errors" not in answer
    async with stack.db.transaction() as session:
        [queued] = (await session.exec(select(MailOutbox))).all()
    assert queued.status == "QUEUED"

    report = await sweep_now(stack)
    assert report.mails_started == 1
    await stack.env.client.get_workflow_handle(f"mail-{queued.idempotency_key}").result()
    async with stack.db.transaction() as session:
        [delivered] = (await session.exec(select(MailOutbox))).all()
    assert delivered.status == "SENT"
    assert len(await stack.mail_to(to)) == 1
    assert (await sweep_now(stack)).mails_started == 0


async def test_the_sweep_purges_tokens_used_or_expired_longer_ago_than_the_retention(stack):
    old, recent = utcnow() - timedelta(hours=30), utcnow() - timedelta(hours=1)
    tokens = [await stack.token() for _ in range(4)]
    assert len(tokens) == 4
    async with stack.db.transaction() as session:
        ids = list((await session.exec(select(ApiToken.id).order_by(col(ApiToken.id)))).all())[-4:]
        for token_id, (used, expires) in zip(
            ids, [(old, recent), (None, old), (recent, utcnow() + timedelta(hours=1)), (None, utcnow())], strict=True
        ):
            await session.execute(
                update(ApiToken).where(col(ApiToken.id) == token_id).values(used_at=used, expires_at=expires)
            )
    report = await sweep_now(stack)
    assert report.tokens_purged == 2
    async with stack.db.transaction() as session:
        left = set((await session.exec(select(ApiToken.id).where(col(ApiToken.id).in_(ids)))).all())
    assert left == set(ids[2:])


async def test_the_worker_keeps_the_schedule_at_the_configured_interval_and_removes_it_at_zero(stack):
    settings = settings_of(stack).replaced(**{"sweep_seconds": 45})
    client = stack.env.client
    await ensure_sweep_schedule(client, settings)
    handle = client.get_schedule_handle(sweep_schedule_id(settings))
    try:
        [interval] = (await handle.describe()).schedule.spec.intervals
        assert interval.every == timedelta(seconds=45)
        await ensure_sweep_schedule(client, settings.replaced(**{"sweep_seconds": 30}))  # a new setting
        [interval] = (await handle.describe()).schedule.spec.intervals
        assert interval.every == timedelta(seconds=30)

        ids = await created_while_temporal_was_away(stack)
        await ensure_sweep_schedule(client, settings.replaced(**{"sweep_grace_seconds": 0}))
        await handle.trigger()  # what the interval does, now
        await wait_for(stack, ids, {"ACTIVE"})
    finally:
        await ensure_sweep_schedule(client, settings.replaced(**{"sweep_seconds": 0}))
    with pytest.raises(RPCError) as gone:
        await handle.describe()
    assert gone.value.status == RPCStatusCode.NOT_FOUND
