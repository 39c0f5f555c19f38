"""Counts for the metrics scrape: each one aggregate query whose answer is bounded by the statuses there are,
however many rows the tables hold."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import col, select

from models.statuses import MailStatus
from models.tables.enrollment import Line
from models.tables.mail import MailOutbox
from persistence.transaction import DbSession


async def lines_by_status(session: DbSession) -> dict[str, int]:
    rows = await session.exec(select(Line.status, func.count()).group_by(col(Line.status)))
    return dict(rows.all())


async def mail_queued(session: DbSession) -> int:
    query = select(func.count()).select_from(MailOutbox).where(col(MailOutbox.status) == MailStatus.QUEUED.value)
    return (await session.exec(query)).one()
