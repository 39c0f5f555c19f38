"""The support domain's activities, the sweep's: find the rows whose workflow never started (customer intake's
RECEIVED lines, the mail outbox's QUEUED messages), put back the retries whose signal never left, hash the line
passwords left sealed, and purge the tokens nobody can use any more and the password-change proofs past their
retention."""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import delete, or_
from sqlmodel import col, select
from temporalio import activity

from models.agents import PasswordChange, ProofBlob, ProofImageRow
from models.auth import ApiToken
from models.crypto import FieldCipher
from models.db import Database
from models.enrollment.lines import Line, LineStatus, hash_left_pending, orders_of
from models.mail import MailDelivery, MailOutbox, MailStatus
from models.support import LeftBehind, Sweep, release_unsent_retries
from models.types import utcnow

log = logging.getLogger("lineup.sweep")

MOST_AT_ONCE = 100  # orders or messages in one sweep; the next sweep takes the rest
PASSWORDS_AT_ONCE = 50  # argon2 hashes of ~50 ms each: well within the activity's 30 s


class SupportActivities:
    def __init__(self, db: Database, cipher: FieldCipher) -> None:
        self._db, self._cipher = db, cipher

    @activity.defn
    async def left_behind(self, sweep: Sweep) -> LeftBehind:
        """Orders whose lines stayed RECEIVED and messages that stayed QUEUED longer than the grace; lines left
        RETRYING that long are STUCK again, and line passwords left sealed that long are hashed."""
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
            if released := await release_unsent_retries(session, before):
                log.warning("retries that never reached their line are STUCK again: %s", ", ".join(released))
        # Passwords an API process left sealed (it died before hashing them): hashed here, a few per sweep.
        await hash_left_pending(self._db, self._cipher, created_before=before, limit=PASSWORDS_AT_ONCE)
        mails = [MailDelivery(outbox_id, key) for outbox_id, key in outbox if outbox_id is not None]
        return LeftBehind(orders, mails)

    @activity.defn
    async def purge_tokens(self, sweep: Sweep) -> int:
        """Deletes tokens used or expired more than the retention ago (the table stays the size of its traffic),
        and the proof images of password changes older than theirs with the bytes no proof names any more (an
        image is stored once for every change that sent it: it stays while one of them is kept)."""
        before = utcnow() - timedelta(hours=sweep.token_retention_hours)
        changed_before = utcnow() - timedelta(days=sweep.proof_retention_days)
        old = select(PasswordChange.id).where(col(PasswordChange.changed_at) < changed_before)
        named = select(ProofImageRow.sha256).where(col(ProofImageRow.sha256) == col(ProofBlob.sha256))
        async with self._db.transaction() as session:
            purged = await session.run(
                delete(ApiToken).where(or_(col(ApiToken.used_at) < before, col(ApiToken.expires_at) < before))
            )
            await session.execute(delete(ProofImageRow).where(col(ProofImageRow.password_change_id).in_(old)))
            await session.execute(delete(ProofBlob).where(~named.exists()))
        return purged
