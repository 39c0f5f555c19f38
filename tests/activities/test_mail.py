"""MailActivities.send with ActivityEnvironment against the sandbox's SMTP sink: a retried activity sends one
e-mail, and an outage is a retryable failure that leaves the message queued."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel import select
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.mail import MailActivities
from adapters.smtp import SmtpSender
from models.auth import Vendor
from models.crypto import cipher_for
from models.db import Database
from models.mail import MailDelivery, MailOutbox, MailStatus
from models.types import utcnow


@pytest.fixture
def settings_overrides(sandbox_smtp_port: int) -> dict[str, Any]:
    return {"smtp_port": sandbox_smtp_port}


@pytest.fixture
async def db(settings: Any) -> AsyncIterator[Database]:
    database = Database(settings)
    yield database
    await database.dispose()


@pytest.fixture
def activities(settings: Any, db: Database) -> MailActivities:
    return MailActivities(SmtpSender(settings), db, cipher_for(settings))


async def queued(
    settings: Any, db: Database, to: str, *, subject: str = "Hello", age: timedelta = timedelta(0)
) -> MailOutbox:
    """An outbox row as the API writes it (or as an older version let through), queued `age` ago."""
    key = f"DEMO-t-ACT{secrets.token_hex(6)}"
    content = {
        "sender_name": "Lineup",
        "sender_email": "ops@lineup.example",
        "subject": subject,
        "body": "<p>Hello</p>",
        "recipients": [["Ada Lovelace", to]],
    }
    async with db.transaction() as session:
        vendor = (await session.exec(select(Vendor).where(Vendor.code == "DEMO"))).one()
        assert vendor.id is not None
        row = MailOutbox(
            idempotency_key=key,
            vendor_id=vendor.id,
            message_id=f"<{key}@lineup.local>",
            content=cipher_for(settings).encrypt(json.dumps(content)),
            recipient_count=1,
            created_at=utcnow() - age,
        )
        session.add(row)
    return row


async def sink(sandbox_url: str, to: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient() as http:
        messages: list[dict[str, Any]] = (await http.get(f"{sandbox_url}/sandbox/mail", params={"to": to})).json()[
            "messages"
        ]
        return messages


async def status(db: Database, outbox_id: int) -> str:
    return (await reread(db, outbox_id)).status


async def reread(db: Database, outbox_id: int) -> MailOutbox:
    async with db.transaction() as session:
        row = await session.get(MailOutbox, outbox_id)
        assert row is not None
        return row


async def test_send_run_twice_sends_one_email(settings, db, activities, sandbox_url):
    to = f"retry.{secrets.token_hex(5)}@example.com"
    row = await queued(settings, db, to)
    assert row.id is not None
    delivery = MailDelivery(row.id, row.idempotency_key)
    first = await ActivityEnvironment().run(activities.send, delivery)
    second = await ActivityEnvironment().run(activities.send, delivery)  # Temporal retrying a lost completion
    assert first == second and first.message_id == row.message_id
    [received] = await sink(sandbox_url, to)
    assert (received["idempotency_key"], received["message_id"]) == (row.idempotency_key, row.message_id)
    assert await status(db, row.id) == "SENT"


async def test_send_during_an_outage_is_a_retryable_failure_and_stays_queued(settings, db, activities, sandbox_url):
    to = f"down.{secrets.token_hex(5)}@example.com"
    row = await queued(settings, db, to)
    assert row.id is not None
    async with httpx.AsyncClient() as http:
        await http.post(f"{sandbox_url}/sandbox/smtp", json={"available": False})
        try:
            with pytest.raises(ApplicationError) as failure:
                await ActivityEnvironment().run(activities.send, MailDelivery(row.id, row.idempotency_key))
        finally:
            await http.post(f"{sandbox_url}/sandbox/smtp", json={"available": True})
    assert failure.value.type == "Unavailable" and not failure.value.non_retryable
    assert "421" in failure.value.message
    assert await status(db, row.id) == "QUEUED"
    assert await sink(sandbox_url, to) == []
    assert (await reread(db, row.id)).last_error == "The mail relay is unavailable: 421 Service not available"


@pytest.mark.parametrize("breaking", ["\u2028", "\u2029", "\u0085"])
async def test_a_message_that_cannot_be_composed_is_rejected_for_good(settings, db, activities, sandbox_url, breaking):
    """Rows written before the boundary refused such subjects: no attempt could ever send them."""
    to = f"unbuildable.{secrets.token_hex(5)}@example.com"
    row = await queued(settings, db, to, subject=f"Hello{breaking}there")
    assert row.id is not None
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(activities.send, MailDelivery(row.id, row.idempotency_key))
    assert failure.value.type == "MailRejected" and failure.value.non_retryable
    found = await reread(db, row.id)
    assert (found.status, found.last_error) == ("REJECTED", "unbuildable the message cannot be composed (ValueError)")
    assert await sink(sandbox_url, to) == []


async def test_mail_undelivered_past_the_age_limit_is_rejected_with_the_last_outage(settings, db, sandbox_url):
    def limited(hours: float) -> MailActivities:
        return MailActivities(SmtpSender(settings), db, cipher_for(settings), max_age=timedelta(hours=hours))

    to = f"aged.{secrets.token_hex(5)}@example.com"
    young = await queued(settings, db, to, age=timedelta(hours=1))
    old = await queued(settings, db, to, age=timedelta(hours=3))
    assert young.id is not None and old.id is not None
    async with httpx.AsyncClient() as http:
        await http.post(f"{sandbox_url}/sandbox/smtp", json={"available": False})
        try:
            for row, activities in ((young, limited(2)), (old, limited(4))):  # both within their limits: retried
                assert row.id is not None
                with pytest.raises(ApplicationError) as outage:
                    await ActivityEnvironment().run(activities.send, MailDelivery(row.id, row.idempotency_key))
                assert outage.value.type == "Unavailable"
            with pytest.raises(ApplicationError) as given_up:
                await ActivityEnvironment().run(limited(2).send, MailDelivery(old.id, old.idempotency_key))
        finally:
            await http.post(f"{sandbox_url}/sandbox/smtp", json={"available": True})
    assert given_up.value.type == "MailRejected" and given_up.value.non_retryable
    aged = await reread(db, old.id)
    assert aged.status == "REJECTED"
    assert aged.last_error == "undelivered after 2 h: The mail relay is unavailable: 421 Service not available"
    # The young one goes out once the relay is back; the old one never will, whatever limit a later run has.
    await ActivityEnvironment().run(limited(2).send, MailDelivery(young.id, young.idempotency_key))
    with pytest.raises(ApplicationError):
        await ActivityEnvironment().run(limited(100).send, MailDelivery(old.id, old.idempotency_key))
    assert len(await sink(sandbox_url, to)) == 1


async def test_the_database_away_after_the_relay_took_the_message_sends_it_once(
    settings, db, activities, sandbox_url, monkeypatch
):
    """Issue 35's soak: PostgreSQL killed between the relay's acceptance and the SENT write made the activity run
    again (the outage interceptor's wait) and the customer got the welcome e-mail twice. The write waits alone."""
    to = f"blip.{secrets.token_hex(5)}@example.com"
    row = await queued(settings, db, to)
    assert row.id is not None
    mark, failures = activities._mark, list[MailStatus]()  # noqa: SLF001  # the test's own object, its write made to fail twice

    async def away_twice(outbox_id: int, state: MailStatus, **kwargs: Any) -> None:
        if state == MailStatus.SENT and len(failures) < 2:
            failures.append(state)
            raise OperationalError("UPDATE", {}, OSError("connection refused"), connection_invalidated=True)
        await mark(outbox_id, state, **kwargs)

    monkeypatch.setattr(activities, "_mark", away_twice)
    monkeypatch.setattr("activities.mail.FIRST_PAUSE", 0.01)
    environment = ActivityEnvironment()
    beats: list[object] = []
    environment.on_heartbeat = lambda *details: beats.append(details)
    await environment.run(activities.send, MailDelivery(row.id, row.idempotency_key))
    assert len(failures) == 2 and len(beats) >= 2  # waited, heartbeating, on the write alone
    assert len(await sink(sandbox_url, to)) == 1
    assert await status(db, row.id) == "SENT"
