"""Mail delivery: sends one outbox message through SMTP, then marks it SENT. A row already SENT is not
sent again, so a retried activity or a repeated workflow never makes a second e-mail."""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.errors import outside_call
from adapters.http import Rejected
from adapters.smtp import Mail, SmtpSender
from models.clock import utcnow
from models.crypto import FieldCipher
from models.failures import MAIL_REJECTED
from models.messages.mail import MailDelivery, MailSent
from models.statuses import MailStatus
from models.tables.mail import MailOutbox
from persistence.engine import Database
from persistence.errors import RecordNotFound


class MailActivities:
    def __init__(self, smtp: SmtpSender, db: Database, cipher: FieldCipher) -> None:
        self._smtp, self._db, self._cipher = smtp, db, cipher

    @activity.defn
    async def send(self, delivery: MailDelivery) -> MailSent:
        async with outside_call():
            row = await self._row(delivery.outbox_id)
            if row.status == MailStatus.SENT:
                return MailSent(row.message_id)
            content = self._cipher.open(row.content)
            mail = Mail(
                sender_name=content["sender_name"], sender_email=content["sender_email"],
                subject=content["subject"], html=content["body"],
                recipients=[(name, email) for name, email in content["recipients"]],
                message_id=row.message_id, idempotency_key=row.idempotency_key,
            )  # fmt: skip
            try:
                await self._smtp.send(mail)
            except Rejected as exc:
                await self._mark(delivery.outbox_id, MailStatus.REJECTED, error=f"{exc.code} {exc.description}")
                raise ApplicationError(str(exc), exc.code, type=MAIL_REJECTED, non_retryable=True) from None
        await self._mark(delivery.outbox_id, MailStatus.SENT)
        return MailSent(row.message_id)

    async def _row(self, outbox_id: int) -> MailOutbox:
        async with self._db.transaction() as session:
            row = await session.get(MailOutbox, outbox_id)
        if row is None:
            raise RecordNotFound(f"outbox message {outbox_id} not found")
        return row

    async def _mark(self, outbox_id: int, status: MailStatus, *, error: str | None = None) -> None:
        async with self._db.transaction() as session:
            row = await session.get(MailOutbox, outbox_id)
            assert row is not None  # read a moment ago; outbox rows are never deleted
            row.status, row.last_error = status, error[:500] if error else None
            if status == MailStatus.SENT:
                row.sent_at = utcnow()
            session.add(row)
