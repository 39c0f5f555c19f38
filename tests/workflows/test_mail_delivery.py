"""MailDeliveryWorkflow against a real worker and the sandbox's SMTP sink: an outage delays mail instead of
losing it, a retried request during the outage starts nothing new, and the message arrives exactly once."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from sqlmodel import select
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle

from models.mail import MailOutbox
from tests.support.builders import body
from tests.support.lines import SUPPORT
from tests.support.mail_relay import REFUSING_PORT
from tests.support.waiting import eventually
from workflows.mail import MailDeliveryWorkflow

SENT, QUEUED = "Mail sent successfully", "Mail queued for delivery"
OUTAGE = "The mail relay is unavailable: 421 Service not available"


def mail(to: str, **overrides):
    return body("send", receiver_name=["Ada Lovelace"], receiver_email=[to], **overrides)


async def outbox(stack) -> list[MailOutbox]:
    async with stack.db.transaction() as session:
        return list((await session.exec(select(MailOutbox))).all())


async def delivered_by(handle: WorkflowHandle[Any, Any]) -> str:
    """The run of the message's delivery workflow, which has ended: a second run would be a second delivery."""
    described = await handle.describe()
    assert described.status != WorkflowExecutionStatus.RUNNING, described.status
    return described.run_id


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
        [failed] = await eventually(  # an attempt met the relay down: it says why, and nothing arrived
            lambda: outbox(stack), lambda rows: rows[0].last_error is not None, what="an attempt failed"
        )
        assert failed.status == "QUEUED" and failed.last_error == OUTAGE
        assert await stack.mail_to(to) == []
    finally:
        await stack.sandbox_post("/sandbox/smtp", {"available": True})

    [received] = await arrived(stack, to)
    handle = stack.env.client.get_workflow_handle_for(MailDeliveryWorkflow.run, f"mail-{queued.idempotency_key}")
    result = await asyncio.wait_for(handle.result(), timeout=10)
    assert result.message_id == received["message_id"] == queued.message_id
    [sent] = await outbox(stack)
    assert sent.status == "SENT" and sent.sent_at is not None

    sent_by = (await handle.describe()).run_id
    again = await stack.call("/mail", request)
    assert again["msg"] == SENT
    assert await delivered_by(handle) == sent_by  # answered from the outbox: no delivery started again
    assert len(await stack.mail_to(to)) == 1


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


TWO_SECONDS = 2 / 3600


@pytest.mark.parametrize(
    "settings_overrides", [{"mail_wait_seconds": 0.3, "mail_max_age_hours": TWO_SECONDS, "sweep_grace_seconds": 0}]
)
async def test_mail_past_its_age_limit_is_rejected_for_good_and_listed_for_support(stack):
    """Issue 19, finding 5: delivery is not retried forever. A relay down longer than LINEUP_MAIL_MAX_AGE_HOURS
    makes the message REJECTED, with the outage as the reason; support sees it in list_undelivered_mail."""
    to = f"aged.{secrets.token_hex(5)}@example.com"
    await stack.sandbox_post("/sandbox/smtp", {"available": False})
    try:
        queued = await stack.call("/mail", mail(to))
        assert (queued["msg_code"], queued["msg"]) == ("RESTAPI000", QUEUED)
        listed = await stack.call("/ops", body("list_undelivered_mail", **SUPPORT))
        [waiting] = listed["data"]
        assert (waiting["status"], waiting["recipient_count"]) == ("QUEUED", 1)
        [row] = await outbox(stack)
        handle = stack.env.client.get_workflow_handle_for(MailDeliveryWorkflow.run, f"mail-{row.idempotency_key}")
        with pytest.raises(WorkflowFailureError):  # attempts at 0, 1 and 3 s: the third is past the limit
            await asyncio.wait_for(handle.result(), timeout=20)
    finally:
        await stack.sandbox_post("/sandbox/smtp", {"available": True})
    listed = await stack.call("/ops", body("list_undelivered_mail", **SUPPORT))
    [rejected] = listed["data"]
    assert (rejected["status"], rejected["message_id"], rejected["agent_username"]) == (
        "REJECTED",
        row.message_id,
        "demo.agent",
    )
    assert rejected["last_error"] == f"undelivered after 0.000555556 h: {OUTAGE}"
    given_up_by = (await handle.describe()).run_id
    again = await stack.call("/mail", mail(to))  # the same request again: answered from the outbox
    assert again["errors"] == [f"The mail relay refused the message: {rejected['last_error']}"]
    assert await delivered_by(handle) == given_up_by
    assert await stack.mail_to(to) == []


async def test_list_undelivered_mail_needs_the_support_role_and_a_limit_of_1_to_500(stack):
    refused = await stack.call("/ops", body("list_undelivered_mail"))
    assert (refused["msg_code"], refused["msg"]) == ("RESTAPI109", "Unauthorized Access")
    assert (await stack.call("/ops", body("list_undelivered_mail", limit=500, **SUPPORT)))["data"] == []
    too_many = await stack.call("/ops", body("list_undelivered_mail", limit=501, **SUPPORT))
    assert too_many["errors"] == ["Limit must be at most 500"]
