"""The mail domain's activity: sends one outbox message through SMTP, then marks it SENT. A row already SENT is not
sent again, so a retried activity or a repeated workflow never makes a second e-mail. A message the relay
refuses, that cannot be composed, or that waited past LINEUP_MAIL_MAX_AGE_HOURS is REJECTED for good. Once the
relay took a message, the database away is waited out on the SENT write alone: running the activity again (as the
worker's interceptor does for an outage) would send a second e-mail, which no relay takes back."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from temporalio import activity
from temporalio.exceptions import ApplicationError

from adapters.http import Rejected, Unavailable, outside_call
from adapters.smtp import Mail, SmtpSender
from models.crypto import FieldCipher, MailContent
from models.db import Database, RecordNotFound, database_unavailable
from models.envelope import MAIL_REJECTED
from models.mail import MailDelivery, MailOutbox, MailSent, MailStatus
from models.types import utcnow

# A message kept from its relay this long is given up: an outage that long needs a person, not more retries.
DEFAULT_MAX_AGE = timedelta(hours=48)
# The SENT write's pauses while the database is away: doubling, each well within the activity's heartbeat timeout.
FIRST_PAUSE, LONGEST_PAUSE = 0.5, 4.0

log = logging.getLogger("lineup.mail")


class MailActivities:
    def __init__(
        self, smtp: SmtpSender, db: Database, cipher: FieldCipher, *, max_age: timedelta = DEFAULT_MAX_AGE
    ) -> None:
        self._smtp, self._db, self._cipher, self._max_age = smtp, db, cipher, max_age

    @activity.defn
    async def send(self, delivery: MailDelivery) -> MailSent:
        async with outside_call():
            row = await self._row(delivery.outbox_id)
            if row.status == MailStatus.SENT:
                return MailSent(row.message_id)
            if row.status == MailStatus.REJECTED:  # given up on by an earlier attempt or run: never sent now
                raise ApplicationError(row.last_error or "rejected", type=MAIL_REJECTED, non_retryable=True)
            if utcnow() - row.created_at > self._max_age:
                await self._give_up(row)
            content = self._cipher.open(row.content, MailContent)
            mail = Mail(
                sender_name=content["sender_name"],
                sender_email=content["sender_email"],
                subject=content["subject"],
                html=content["body"],
                recipients=[(name, email) for name, email in content["recipients"]],
                message_id=row.message_id,
                idempotency_key=row.idempotency_key,
            )
            try:
                await self._smtp.send(mail)
            except Rejected as exc:
                await self._mark(delivery.outbox_id, MailStatus.REJECTED, error=f"{exc.code} {exc.description}")
                raise ApplicationError(str(exc), exc.code, type=MAIL_REJECTED, non_retryable=True) from None
            except Unavailable as exc:  # still QUEUED; support's listing says why it waits
                await self._mark(delivery.outbox_id, MailStatus.QUEUED, error=str(exc))
                raise
        await self._sent(delivery.outbox_id)
        return MailSent(row.message_id)

    async def _sent(self, outbox_id: int) -> None:
        """SENT recorded after the relay took the message, retried alone while the database is away (heartbeating,
        within the attempt's time): only an outage longer than the attempt sends the message again."""
        pause, told = FIRST_PAUSE, False
        while True:
            try:
                await self._mark(outbox_id, MailStatus.SENT)
                return
            except Exception as problem:
                if not database_unavailable(problem):
                    raise
                if not told:
                    told = True
                    fields = {"reason": type(problem).__name__, "outbox_id": outbox_id}
                    log.warning("mail sent; the database is away, SENT waits for it", extra={"fields": fields})
            activity.heartbeat()
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    async def _give_up(self, row: MailOutbox) -> None:
        """REJECTED after the age limit, with the last outage's reason kept beside it."""
        assert row.id is not None
        hours = self._max_age.total_seconds() / 3600
        error = f"undelivered after {hours:g} h" + (f": {row.last_error}" if row.last_error else "")
        await self._mark(row.id, MailStatus.REJECTED, error=error)
        raise ApplicationError(error, type=MAIL_REJECTED, non_retryable=True)

    async def _row(self, outbox_id: int) -> MailOutbox:
        async with self._db.transaction(write=False) as session:
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
