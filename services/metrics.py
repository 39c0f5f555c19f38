"""The database half of a metrics scrape: lines by status (every status, zero included, so a series never
vanishes) and the outbox's undelivered mail, read in one short transaction."""

from __future__ import annotations

from models.statuses import LineStatus
from observability.metrics import Snapshot
from persistence.counts import lines_by_status, mail_queued
from persistence.engine import Database


async def snapshot(db: Database) -> Snapshot:
    async with db.transaction() as session:
        counted = await lines_by_status(session)
        queued = await mail_queued(session)
    lines = {status.value: counted.get(status.value, 0) for status in LineStatus}
    return Snapshot(lines=lines, stuck_lines=lines[LineStatus.STUCK.value], mail_queued=queued)
