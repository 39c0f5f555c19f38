"""Counts for the metrics scrape: each one aggregate query whose answer is bounded by the statuses there are,
however many rows the tables hold."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func
from sqlmodel import col, select

from models.statuses import MailStatus
from models.tables.enrollment import Line
from models.tables.events import WebhookEndpoint
from models.tables.mail import MailOutbox
from models.tables.porting import PortIn
from models.tables.workers import WorkerHeartbeat
from persistence.overview import AgeBands, age_band, pending_ports
from persistence.transaction import DbSession


async def lines_by_status(session: DbSession) -> dict[str, int]:
    rows = await session.exec(select(Line.status, func.count()).group_by(col(Line.status)))
    return dict(rows.all())


async def mail_queued(session: DbSession) -> int:
    query = select(func.count()).select_from(MailOutbox).where(col(MailOutbox.status) == MailStatus.QUEUED.value)
    return (await session.exec(query)).one()


# Issue 30: what the alert rules need from the database, each one aggregate query.


async def ports_pending_by_age(session: DbSession, bands: AgeBands) -> dict[str, int]:
    """Ports not yet final, every vendor's, by age band (persistence.overview.BANDS)."""
    band = age_band(bands).label("band")
    query = (
        select(band, func.count())
        .select_from(PortIn)
        .join(Line, col(Line.enrollment_id) == col(PortIn.enrollment_id))
        .where(pending_ports())
        .group_by(band)
    )
    return {str(name): int(count) for name, count in (await session.execute(query)).all()}


async def webhook_endpoints_failing(session: DbSession) -> int:
    """Active endpoints whose deliveries fail since their last success."""
    query = select(func.count()).select_from(WebhookEndpoint)
    query = query.where(col(WebhookEndpoint.active), col(WebhookEndpoint.failing_since).is_not(None))
    return (await session.exec(query)).one()


async def workers_alive(session: DbSession, seen_since: datetime) -> dict[str, int]:
    """Workers that wrote their heartbeat since `seen_since`, by task queue."""
    query = (
        select(col(WorkerHeartbeat.task_queue), func.count())
        .where(col(WorkerHeartbeat.seen_at) >= seen_since)
        .group_by(col(WorkerHeartbeat.task_queue))
    )
    return {str(queue): int(count) for queue, count in (await session.execute(query)).all()}
