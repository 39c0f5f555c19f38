"""Worker heartbeats: a worker keeps its row fresh; readiness asks when a worker of a task queue last did."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, update
from sqlmodel import col, select

from models.clock import utcnow
from models.tables.workers import WorkerHeartbeat
from persistence.engine import Database
from persistence.transaction import DbSession


async def beat(db: Database, identity: str, task_queue: str) -> None:
    """This worker is alive now (one writer per identity: update, else insert)."""
    async with db.transaction() as session:
        moved = await session.execute(
            update(WorkerHeartbeat).where(col(WorkerHeartbeat.identity) == identity).values(seen_at=utcnow())
        )
        if not moved.rowcount:  # type: ignore[attr-defined]
            session.add(WorkerHeartbeat(identity=identity, task_queue=task_queue))


async def stopped(db: Database, identity: str) -> None:
    """A worker that stops says so: readiness need not wait for its row to go stale."""
    async with db.transaction() as session:
        await session.execute(delete(WorkerHeartbeat).where(col(WorkerHeartbeat.identity) == identity))


async def last_beat(session: DbSession, task_queue: str) -> datetime | None:
    query = select(func.max(WorkerHeartbeat.seen_at)).where(WorkerHeartbeat.task_queue == task_queue)
    found: datetime | None = (await session.exec(query)).one()
    return found
