"""MailDeliveryWorkflow against a real worker and the sandbox's SMTP sink: an outage delays mail instead of
losing it, a retried request during the outage starts nothing new, and the message arrives exactly once."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlmodel import select

from models.tables.mail import MailOutbox
from tests.builders import body
from tests.support.temporal import free_port
from workflows.mail import MailDeliveryWorkflow

SENT, QUEUED = "Mail sent successfully", "Mail queued for delivery"
REFUSING_PORT = free_port()


def mail(to: str, **overrides):
    return body("send", receiver_name=["Ada Lovelace"], receiver_email=[to], **overrides)


async def outbox(stack) -> list[MailOutbox]:
    async with stack.db.transaction() as session:
        return list((await session.exec(select(MailOutbox))).all())


async def arrived(stack, to: str, *, within: float = 20.0) -> list[dict[str, Any]]:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        messages: list[dict[str, Any]] = await stack.mail_to(to)
        if messages:
            return messages
        assert asyncio.get_running_loop().time() < deadline, "the queued mail never arrived"
        await asyncio.sleep(0.2)


@pytest.mark.parametrize("settings_overrides", [{"mail_wait_seconds": 0.5}])
async def test_smtp_down_queues_the_mail_and_it_arrives_exactly_once_when_back(stack):
    to = f"outage.{secrets.token_hex(5)}@example.com"
    request = mail(to, external_transaction_id=f"OUTAGE{secrets.token_hex(4)}")
    await stack.sandbox_post("/sandbox/smtp", {"available": False})
    try:
        first = await stack.call("/mail", request)
        assert (first["msg_code"], first["msg"]) == ("RESTAPI000", QUEUED)
        retried = await stack.call("/mail", request)  # the channel retries while the relay is still down
        assert (retried["msg_code"], retried["msg"]) == ("RESTAPI000", QUEUED)
        [queued] = await outbox(stack)
        assert queued.status == "QUEUED" and queued.sent_at is None
        await asyncio.sleep(1.5)  # the activity keeps failing meanwhile: nothing may arrive
        assert await stack.mail_to(to) == []
    finally:
        await stack.sandbox_post("/sandbox/smtp", {"available": True})

    [received] = await arrived(stack, to)
    handle = stack.env.client.get_workflow_handle_for(MailDeliveryWorkflow.run, f"mail-{queued.idempotency_key}")
    result = await asyncio.wait_for(handle.result(), timeout=10)
    assert result.message_id == received["message_id"] == queued.message_id
    [sent] = await outbox(stack)
    assert sent.status == "SENT" and sent.sent_at is not None

    again = await stack.call("/mail", request)
    assert again["msg"] == SENT
    await asyncio.sleep(1.0)
    assert len(await stack.mail_to(to)) == 1


class Refusing:
    """A relay that refuses every recipient for good."""

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:
        return "550 5.1.1 Mailbox does not exist"


@pytest.fixture
def refusing_relay() -> Iterator[int]:
    controller = Controller(Refusing(), hostname="127.0.0.1", port=REFUSING_PORT)
    controller.start()
    yield REFUSING_PORT
    controller.stop()


@pytest.mark.parametrize("settings_overrides", [{"smtp_port": REFUSING_PORT}])
async def test_a_relays_permanent_refusal_is_final_and_said_so(refusing_relay, stack):
    to = f"nobody.{secrets.token_hex(5)}@example.com"
    refused = await stack.call("/mail", mail(to))
    assert (refused["msg_code"], refused["errors"]) == (
        "RESTAPI110",
        ["The mail relay refused the message: 550 5.1.1 Mailbox does not exist"],
    )
    [row] = await outbox(stack)
    assert row.status == "REJECTED"
    again = await stack.call("/mail", mail(to))  # the same request: answered from the outbox, not retried
    assert again["errors"] == refused["errors"]
