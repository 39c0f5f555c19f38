"""Repository of the carrier's port-status pushes (issue 27, finding 9): whose port it is, and taking a push once,
its polls per port within their hourly limit."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import delete, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from models.clock import utcnow
from models.tables.auth import Vendor
from models.tables.enrollment import Line
from models.tables.porting import PortPush
from persistence.engine import Database
from persistence.transaction import DbSession

POLL_WINDOW = timedelta(hours=1)


class Taken(StrEnum):
    POLL = "poll"  # a new push: its port is asked now
    WITHIN_LIMIT = "limited"  # a new push, but its port was asked as often as an hour allows: the next poll will see
    REPLAYED = "replayed"  # taken before


async def vendor_of_line(session: DbSession, enrollment_id: str) -> str | None:
    """The code of the vendor whose line this is (what the carrier knows it by), None for no such line."""
    query = select(Vendor.code).join(Line, col(Line.vendor_id) == col(Vendor.id))
    found: str | None = (await session.exec(query.where(col(Line.enrollment_id) == enrollment_id))).first()
    return found


async def take(db: Database, *, digest: str, enrollment_id: str, polls_per_hour: int, keep: timedelta) -> Taken:
    """Records the push once (its digest unique: a replay, even one arriving at the same moment, is REPLAYED) and
    whether it may make its port poll; pushes older than `keep` are purged meanwhile."""
    now = utcnow()
    try:
        async with db.transaction() as session:
            await session.execute(delete(PortPush).where(col(PortPush.received_at) < now - max(keep, POLL_WINDOW)))
            polls = await _recent_polls(session, enrollment_id, since=now - POLL_WINDOW)
            signalled = polls < polls_per_hour
            session.add(PortPush(digest=digest, enrollment_id=enrollment_id, signalled=signalled, received_at=now))
            await session.flush()
    except IntegrityError:
        return Taken.REPLAYED
    return Taken.POLL if signalled else Taken.WITHIN_LIMIT


async def forget(db: Database, digest: str) -> None:
    """A push whose poll could not be asked for: the carrier's next delivery of it is taken as new."""
    async with db.transaction() as session:
        await session.execute(delete(PortPush).where(col(PortPush.digest) == digest))


async def _recent_polls(session: DbSession, enrollment_id: str, *, since: datetime) -> int:
    query = select(func.count()).where(
        col(PortPush.enrollment_id) == enrollment_id, col(PortPush.signalled), col(PortPush.received_at) >= since
    )
    return int((await session.exec(query)).one())
