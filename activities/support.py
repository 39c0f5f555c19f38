"""Activities of the support domain's sweep: find the rows whose workflow never started (customer intake's
RECEIVED lines, the mail outbox's QUEUED messages) and purge the tokens nobody can use any more, and the
password-change proofs past their retention."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from models.clock import utcnow
from models.messages.mail import MailDelivery
from models.messages.support import LeftBehind, Sweep
from models.statuses import LineStatus, MailStatus
from models.tables.auth import ApiToken, PasswordChange, ProofBlob, ProofImage
from models.tables.enrollment import Line
from models.tables.mail import MailOutbox
from persistence.engine import Database
from persistence.enrollment import orders_of

MOST_AT_ONCE = 100  # orders or messages in one sweep; the next sweep takes the rest


class SupportActivities:
    def __init__(self, db: Database) -> None:
        self._db = db

    @activity.defn
    async def left_behind(self, sweep: Sweep) -> LeftBehind:
        """Orders whose lines stayed RECEIVED and messages that stayed QUEUED longer than the grace."""
        before = utcnow() - timedelta(seconds=sweep.grace_seconds)
        stalled = (
            select(Line.order_id)
            .where(Line.status == LineStatus.RECEIVED, col(Line.created_at) < before)
            .distinct()
            .limit(MOST_AT_ONCE)
        )
        queued = (
            select(MailOutbox.id, MailOutbox.idempotency_key)
            .where(MailOutbox.status == MailStatus.QUEUED, col(MailOutbox.created_at) < before)
            .limit(MOST_AT_ONCE)
        )
        async with self._db.transaction() as session:
            orders = await orders_of(session, stalled, pacing=sweep.pacing)
            outbox = (await session.exec(queued)).all()
        mails = [MailDelivery(outbox_id, key) for outbox_id, key in outbox if outbox_id is not None]
        return LeftBehind(orders, mails)

    @activity.defn
    async def purge_tokens(self, sweep: Sweep) -> int:
        """Deletes tokens used or expired more than the retention ago: the table stays the size of its traffic."""
        before = utcnow() - timedelta(hours=sweep.token_retention_hours)
        async with self._db.transaction() as session:
            gone = await session.execute(
                delete(ApiToken).where(or_(col(ApiToken.used_at) < before, col(ApiToken.expires_at) < before))
            )
            await self._purge_proofs(session, utcnow() - timedelta(days=sweep.proof_retention_days))
        purged: int = gone.rowcount  # type: ignore[attr-defined]
        return purged

    @staticmethod
    async def _purge_proofs(session: AsyncSession, before: datetime) -> None:
        """Proof images of password changes older than the retention go, and the bytes no proof names any more
        (an image is stored once for every change that sent it: it stays while one of them is kept)."""
        old = select(PasswordChange.id).where(col(PasswordChange.changed_at) < before)
        await session.execute(delete(ProofImage).where(col(ProofImage.password_change_id).in_(old)))
        named = select(ProofImage.sha256).where(col(ProofImage.sha256) == col(ProofBlob.sha256))
        await session.execute(delete(ProofBlob).where(~named.exists()))
