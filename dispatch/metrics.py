"""The database half of a metrics scrape: lines by status (every status, zero included, so a series never
vanishes) and the outbox's undelivered mail, read in one short transaction, and reused for a few seconds
(LINEUP_METRICS_CACHE_SECONDS): scrapers in step, or a flood of scrapes, cost one query per interval."""

from __future__ import annotations

import asyncio
import time

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


class SnapshotCache:
    """The last snapshot and when it was read; concurrent scrapes of a stale one wait for one query."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._value: Snapshot | None = None
        self._read_at = 0.0
        self._lock = asyncio.Lock()

    async def get(self, db: Database) -> Snapshot:
        async with self._lock:
            if self._value is None or time.monotonic() - self._read_at >= self.seconds:
                self._value = await snapshot(db)
                self._read_at = time.monotonic()
            return self._value
