"""MailActivities.send with ActivityEnvironment against the sandbox's SMTP sink: a retried activity sends one
e-mail, and an outage is a retryable failure that leaves the message queued."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlmodel import select
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.mail import MailActivities
from adapters.smtp import SmtpSender
from models.crypto import cipher_for
from models.messages.mail import MailDelivery
from models.tables.auth import Vendor
from models.tables.mail import MailOutbox
from persistence.engine import Database


@pytest.fixture
def settings_overrides(sandbox_smtp_port: int) -> dict[str, Any]:
    return {"smtp_port": sandbox_smtp_port}


@pytest.fixture
async def db(settings: Any) -> AsyncIterator[Database]:
    database = Database.open(settings)
    yield database
    await database.dispose()


@pytest.fixture
def activities(settings: Any, db: Database) -> MailActivities:
    return MailActivities(SmtpSender(settings), db, cipher_for(settings))


async def queued(settings: Any, db: Database, to: str) -> MailOutbox:
    """An outbox row as the API writes it."""
    key = f"DEMO-t-ACT{secrets.token_hex(6)}"
    content = {"sender_name": "Lineup", "sender_email": "ops@lineup.example", "subject": "Hello",
               "body": "<p>Hello</p>", "recipients": [["Ada Lovelace", to]]}  # fmt: skip
    async with db.transaction() as session:
        vendor = (await session.exec(select(Vendor).where(Vendor.code == "DEMO"))).one()
        assert vendor.id is not None
        row = MailOutbox(
            idempotency_key=key, vendor_id=vendor.id, message_id=f"<{key}@lineup.local>",
            content=cipher_for(settings).encrypt(json.dumps(content)), recipient_count=1,
        )  # fmt: skip
        session.add(row)
    return row


async def sink(sandbox_url: str, to: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient() as http:
        messages: list[dict[str, Any]] = (await http.get(f"{sandbox_url}/sandbox/mail", params={"to": to})).json()[
            "messages"
        ]
        return messages


async def status(db: Database, outbox_id: int) -> str:
    async with db.transaction() as session:
        row = await session.get(MailOutbox, outbox_id)
        assert row is not None
        return row.status


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
