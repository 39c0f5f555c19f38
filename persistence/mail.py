"""Queries of the mail outbox that support reads."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import and_, or_
from sqlmodel import col, select

from models.statuses import MailStatus
from models.tables.mail import MailOutbox
from persistence.transaction import DbSession


async def undelivered(
    session: DbSession, *, vendor_id: int, queued_before: datetime, limit: int
) -> Sequence[MailOutbox]:
    """The vendor's REJECTED messages and those QUEUED since before `queued_before`, oldest first."""
    query = (
        select(MailOutbox)
        .where(
            MailOutbox.vendor_id == vendor_id,
            or_(
                col(MailOutbox.status) == MailStatus.REJECTED,
                and_(col(MailOutbox.status) == MailStatus.QUEUED, col(MailOutbox.created_at) < queued_before),
            ),
        )
        .order_by(col(MailOutbox.created_at), col(MailOutbox.id))
        .limit(limit)
    )
    return (await session.exec(query)).all()
