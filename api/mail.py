"""The mail domain's actions: `send`, and the list of the mail support should look at (`/ops`). A message is
written to the outbox first, then a workflow delivers it through SMTP; the channel hears "sent" once the relay
accepted it, or "queued" when the relay is down and retries go on, or when Temporal is down and the sweep will
start the delivery (the row is committed first). agent_change_password's e-mail takes the same path
(outbox_row, deliver)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.exc import IntegrityError
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from api.access import ALL_SOURCES
from api.dispatch import Context, Reply, action
from api.support import SUPPORT
from api.temporal import START_ONCE
from models.crypto import FieldCipher, MailContent
from models.db import row_for_key
from models.envelope import refuse
from models.mail import (
    UNDELIVERED,
    ListUndeliveredMail,
    MailDelivery,
    MailOutbox,
    MailStatus,
    Send,
    UndeliveredMail,
    undelivered,
)
from models.settings import Settings
from models.types import utcnow
from workflows.mail import MailDeliveryWorkflow, mail_workflow_id

log = logging.getLogger("lineup.mail")

SENT_MSG, QUEUED_MSG = "Mail sent successfully", "Mail queued for delivery"
UNREACHABLE = "mail queued while the workflow engine is unreachable; the sweep starts it"


@dataclass(frozen=True)
class Message:
    """One e-mail as the outbox stores it (encrypted): who sends it, to whom, what it says."""

    sender_name: str
    sender_email: str
    subject: str
    html: str
    recipients: list[tuple[str, str]]  # (name, address)


@action("mail", interface=True, msg=SENT_MSG)
async def send(*, body: Send, ctx: Context) -> Reply[None]:
    """Sends an HTML e-mail to 1 to 50 recipients, once per idempotency key, waiting up to
    LINEUP_MAIL_WAIT_SECONDS for the relay: a repeated request finds the same outbox row and workflow, so it never
    sends a second e-mail."""
    recipients = list(zip(body.receiver_name, body.receiver_email, strict=True))
    message = Message(body.sender_name, body.sender_email, body.subject, body.body, recipients)
    caller = ctx.caller
    row = outbox_row(
        mail_key(caller.vendor_code, body),
        message,
        vendor_id=caller.vendor_id,
        agent_username=caller.agent_username,
        settings=ctx.settings,
        cipher=ctx.cipher,
    )
    outbox = await _enqueue(ctx, row)
    status = await deliver(outbox, ctx)
    if status == MailStatus.REJECTED:
        raise refuse(f"The mail relay refused the message: {outbox.last_error}")
    return Reply(SENT_MSG if status == MailStatus.SENT else QUEUED_MSG, None)


@action("ops", sources=ALL_SOURCES, role=SUPPORT, example=UNDELIVERED)
async def list_undelivered_mail(*, body: ListUndeliveredMail, ctx: Context) -> list[UndeliveredMail]:
    """The vendor's mail support should look at: REJECTED (refused, unbuildable or past
    LINEUP_MAIL_MAX_AGE_HOURS) or QUEUED for longer than the sweep's grace, with why, oldest first."""
    waiting_since = utcnow() - timedelta(seconds=ctx.settings.sweep.grace_seconds)
    async with ctx.uow.transaction() as session:
        rows = await undelivered(session, vendor_id=ctx.caller.vendor_id, queued_before=waiting_since, limit=body.limit)
    return [
        UndeliveredMail(
            message_id=row.message_id,
            status=row.status,
            recipient_count=row.recipient_count,
            agent_username=row.agent_username,
            last_error=row.last_error or "",
            queued_at=row.created_at.isoformat(),
        )
        for row in rows
    ]


def outbox_row(
    key: str, message: Message, *, vendor_id: int, agent_username: str | None, settings: Settings, cipher: FieldCipher
) -> MailOutbox:
    """The outbox row of a message; its content is encrypted, so no workflow history ever holds it. Its
    Message-ID is derived from the key, so a relay can spot a repeat."""
    content = MailContent(
        sender_name=message.sender_name,
        sender_email=message.sender_email,
        subject=message.subject,
        body=message.html,
        recipients=list(message.recipients),
    )
    domain = settings.mail.sender.rpartition("@")[2] or "lineup.local"
    return MailOutbox(
        idempotency_key=key,
        vendor_id=vendor_id,
        agent_username=agent_username,
        message_id=f"<{re.sub(r'[^A-Za-z0-9.-]', '-', key)}@{domain}>",
        content=cipher.seal(content),
        recipient_count=len(message.recipients),
    )


async def deliver(outbox: MailOutbox, ctx: Context) -> MailStatus:
    """Starts (or finds) the message's delivery and waits up to LINEUP_MAIL_WAIT_SECONDS: SENT once the relay
    accepted it, QUEUED while the relay is down (retries go on) or while Temporal is (the row is committed,
    and the sweep starts its delivery once Temporal is back), REJECTED when it refused for good. The row is read
    again, so its last_error says why."""
    if outbox.status in (MailStatus.SENT, MailStatus.REJECTED):
        return MailStatus(outbox.status)
    await _deliver(outbox, ctx)
    async with ctx.uow.transaction() as session:
        now = await session.get(MailOutbox, outbox.id)
    if now is not None:  # the caller's row (of an earlier transaction) as the delivery left it
        outbox.status, outbox.last_error = now.status, now.last_error
    return MailStatus(outbox.status)


def mail_key(vendor_code: str, body: Send) -> str:
    """The request's external_transaction_id when given, else a digest of everything that makes the e-mail
    and the UTC day: a client's retry finds the first send, while the same notice sent again on another
    day is a new e-mail."""
    if body.external_transaction_id:
        return f"{vendor_code}-t-{body.external_transaction_id}"
    day = datetime.now(UTC).date().isoformat()
    parts = [day, body.sender_name, body.sender_email, body.subject, body.body, body.receiver_name, body.receiver_email]
    return f"{vendor_code}-c-{hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:40]}"


async def _enqueue(ctx: Context, row: MailOutbox) -> MailOutbox:
    """Inserts the outbox row, or finds the one an earlier request with the same key wrote."""
    async with ctx.uow.transaction() as session:
        if (found := await row_for_key(session, MailOutbox, row.idempotency_key)) is not None:
            return found
        try:
            # A savepoint: the same request racing in another process rolls back this insert, not the request.
            async with session.begin_nested():
                session.add(row)
                await session.flush()
            return row
        except IntegrityError:
            won = await row_for_key(session, MailOutbox, row.idempotency_key)
            assert won is not None  # the row whose insert made ours collide
            return won


async def _deliver(outbox: MailOutbox, ctx: Context) -> None:
    """Starts (or finds) the message's delivery workflow and waits for it a little; a delivery that already
    ended is never run again (the outbox row says how it ended)."""
    assert outbox.id is not None
    await ctx.uow.commit_before_wait()  # commits the outbox row: from here on the message is durably queued
    client = ctx.resources.temporal.connected
    if client is None:
        log.warning(UNREACHABLE)
        return
    try:
        async with asyncio.timeout(ctx.settings.temporal.rpc_seconds):
            handle = await client.start_workflow(
                MailDeliveryWorkflow.run,
                MailDelivery(outbox.id, outbox.idempotency_key),
                id=mail_workflow_id(outbox.idempotency_key),
                task_queue=ctx.task_queue,
                **START_ONCE,
            )
    except WorkflowAlreadyStartedError:
        return
    except (RPCError, TimeoutError):
        log.warning(UNREACHABLE)
        return
    # Still retrying (the relay is down), refused, or Temporal went away after the start: the row says which.
    with contextlib.suppress(TimeoutError, WorkflowFailureError, RPCError):
        await asyncio.wait_for(handle.result(), timeout=ctx.settings.mail.wait_seconds)
