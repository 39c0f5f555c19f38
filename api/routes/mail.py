"""`/mail`: send. The message is written to the outbox first, then a workflow delivers it through SMTP; the
channel hears "sent" once the relay accepted it, or "queued" when the relay is down and retries go on."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError
from sqlmodel import select
from temporalio.client import WorkflowFailureError, WorkflowHandle
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from api.deps import LinesDep, SessionsDep, SettingsDep, TemporalDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from api.workflows import outside_system
from models.crypto import FieldCipher
from models.db import transaction
from models.envelope import Envelope
from models.messages import MailDelivery
from models.requests.mail import MailAction, Send
from models.settings import Settings
from models.tables.mail import REJECTED, SENT, MailOutbox
from workflows.ids import mail_workflow_id
from workflows.mail import MailDeliveryWorkflow

router = APIRouter(tags=["mail"])
MailBody = Annotated[MailAction, Body(discriminator="action")]
MailCaller = Annotated[Caller, Depends(gate("mail"))]
SENT_MSG, QUEUED_MSG = "Mail sent successfully", "Mail queued for delivery"


@router.post("/mail", response_model=Envelope)
async def mail(
    request: Request, body: MailBody, caller: MailCaller, settings: SettingsDep, sessions: SessionsDep,
    lines: LinesDep, temporal: TemporalDep,
) -> JSONResponse:  # fmt: skip
    """E-mail."""
    match body:
        case Send():
            return success(request, msg=await send(body, caller, settings, sessions, lines, temporal))


async def send(
    body: Send, caller: Caller, settings: SettingsDep, sessions: SessionsDep, lines: LinesDep, temporal: TemporalDep
) -> str:
    """Queues the message once per idempotency key and waits up to LINEUP_MAIL_WAIT_SECONDS for delivery.
    A repeated request finds the same outbox row and workflow, so it never sends a second e-mail."""
    outbox = await _enqueue(body, caller, settings, sessions, lines)
    if outbox.status not in (SENT, REJECTED):
        await _deliver(outbox, settings, temporal)
        async with sessions() as session:
            found = await session.get(MailOutbox, outbox.id)
        assert found is not None  # outbox rows are never deleted
        outbox = found
    if outbox.status == REJECTED:
        raise refuse(f"The mail relay refused the message: {outbox.last_error}")
    return SENT_MSG if outbox.status == SENT else QUEUED_MSG


def mail_key(vendor_code: str, body: Send) -> str:
    """The request's external_transaction_id when given, else a digest of everything that makes the e-mail
    and the UTC day: a client's retry finds the first send, while the same notice sent again on another
    day is a new e-mail."""
    if body.external_transaction_id:
        return f"{vendor_code}-t-{body.external_transaction_id}"
    day = datetime.now(UTC).date().isoformat()
    parts = [day, body.sender_name, body.sender_email, body.subject, body.body, body.receiver_name, body.receiver_email]
    return f"{vendor_code}-c-{hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:40]}"


def message_id(key: str, settings: Settings) -> str:
    domain = settings.mail_from.rpartition("@")[2] or "lineup.local"
    return f"<{re.sub(r'[^A-Za-z0-9.-]', '-', key)}@{domain}>"


async def _enqueue(body: Send, caller: Caller, settings: Settings, sessions: SessionsDep, lines: LinesDep) -> MailOutbox:
    """Inserts the outbox row, or finds the one an earlier request with the same key wrote."""
    key = mail_key(caller.vendor_code, body)
    content = {
        "sender_name": body.sender_name, "sender_email": body.sender_email, "subject": body.subject,
        "body": body.body, "recipients": [list(pair) for pair in zip(body.receiver_name, body.receiver_email, strict=True)],
    }  # fmt: skip
    row = MailOutbox(
        idempotency_key=key, vendor_id=caller.vendor_id, agent_username=caller.agent.username if caller.agent else None,
        message_id=message_id(key, settings), content=lines.cipher.encrypt(json.dumps(content)),
        recipient_count=len(body.receiver_email),
    )  # fmt: skip
    try:
        async with transaction(sessions) as session:
            session.add(row)
    except IntegrityError:
        pass  # the same request again (or two at once): the row that won is the message
    async with sessions() as session:
        return (await session.exec(select(MailOutbox).where(MailOutbox.idempotency_key == key))).one()


def outbox_message(
    *, key: str, vendor_id: int, agent_username: str | None, subject: str, html: str,
    recipients: list[tuple[str, str]], settings: Settings, cipher: FieldCipher, sender_name: str = "Lineup",
) -> MailOutbox:  # fmt: skip
    """An outbox row for a message Lineup writes itself (agent_change_password's new password), sent from
    LINEUP_MAIL_FROM; its content is encrypted like `send`'s, so no workflow history ever holds it."""
    content = {
        "sender_name": sender_name, "sender_email": settings.mail_from, "subject": subject, "body": html,
        "recipients": [list(pair) for pair in recipients],
    }  # fmt: skip
    return MailOutbox(
        idempotency_key=key, vendor_id=vendor_id, agent_username=agent_username, message_id=message_id(key, settings),
        content=cipher.encrypt(json.dumps(content)), recipient_count=len(recipients),
    )  # fmt: skip


async def start_delivery(
    outbox: MailOutbox, settings: Settings, temporal: TemporalDep
) -> WorkflowHandle[Any, Any] | None:
    """Starts the message's delivery workflow; None when it already ran (the outbox row says how it ended)."""
    assert outbox.id is not None
    try:
        async with outside_system("The workflow engine"):
            return await temporal.require().start_workflow(
                MailDeliveryWorkflow.run, MailDelivery(outbox.id, outbox.idempotency_key),
                id=mail_workflow_id(outbox.idempotency_key), task_queue=settings.temporal_task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                # A delivery that finished is never run again: the outbox row says how it ended.
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )  # fmt: skip
    except WorkflowAlreadyStartedError:
        return None


async def _deliver(outbox: MailOutbox, settings: Settings, temporal: TemporalDep) -> None:
    """Starts (or finds) the message's delivery workflow and waits for it a little."""
    handle = await start_delivery(outbox, settings, temporal)
    if handle is None:
        return
    try:
        await asyncio.wait_for(handle.result(), timeout=settings.mail_wait_seconds)
    except (TimeoutError, WorkflowFailureError, RPCError):
        pass  # still retrying (the relay is down), refused, or Temporal went away after the start: the row says
