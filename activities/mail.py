"""Mail delivery: sends one outbox message through SMTP, then marks it SENT. A row already SENT is not
sent again, so a retried activity or a repeated workflow never makes a second e-mail."""

from __future__ import annotations

import json

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.adapters.http import Rejected
from activities.adapters.smtp import Mail, SmtpSender
from activities.errors import RecordNotFound, outside_call
from models.crypto import FieldCipher
from models.db import transaction, utcnow
from models.messages import MailDelivery, MailSent
from models.tables.mail import REJECTED, SENT, MailOutbox
from workflows.policies import MAIL_REJECTED


class MailActivities:
    def __init__(
        self, smtp: SmtpSender, sessions: async_sessionmaker[AsyncSession], cipher: FieldCipher
    ) -> None:
        self._smtp, self._sessions, self._cipher = smtp, sessions, cipher

    @activity.defn
    async def send(self, delivery: MailDelivery) -> MailSent:
        async with outside_call():
            row = await self._row(delivery.outbox_id)
            if row.status == SENT:
                return MailSent(row.message_id)
            content = json.loads(self._cipher.decrypt(row.content))
            mail = Mail(
                sender_name=content["sender_name"], sender_email=content["sender_email"],
                subject=content["subject"], html=content["body"],
                recipients=[(name, email) for name, email in content["recipients"]],
                message_id=row.message_id, idempotency_key=row.idempotency_key,
            )  # fmt: skip
            try:
                await self._smtp.send(mail)
            except Rejected as exc:
                await self._mark(delivery.outbox_id, REJECTED, error=f"{exc.code} {exc.description}")
                raise ApplicationError(str(exc), exc.code, type=MAIL_REJECTED, non_retryable=True) from None
        await self._mark(delivery.outbox_id, SENT)
        return MailSent(row.message_id)

    async def _row(self, outbox_id: int) -> MailOutbox:
        async with self._sessions() as session:
            row = await session.get(MailOutbox, outbox_id)
        if row is None:
            raise RecordNotFound(f"outbox message {outbox_id} not found")
        return row

    async def _mark(self, outbox_id: int, status: str, *, error: str | None = None) -> None:
        async with transaction(self._sessions) as session:
            row = await session.get(MailOutbox, outbox_id)
            assert row is not None  # read a moment ago; outbox rows are never deleted
            row.status, row.last_error = status, error[:500] if error else None
            if status == SENT:
                row.sent_at = utcnow()
            session.add(row)
