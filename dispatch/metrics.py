"""The database half of a metrics scrape: lines by status (every status, zero included, so a series never
vanishes), the outbox's undelivered mail, and what the alert rules watch (pending ports by age, failing webhook
endpoints, live workers), read in one short transaction, and reused for a few seconds
(LINEUP_METRICS_CACHE_SECONDS): scrapers in step, or a flood of scrapes, cost one read per interval. A database
that cannot be read is a scrape that says so (`lineup_database_up 0`), not a failed scrape."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import timedelta

from models.clock import utcnow
from models.statuses import LineStatus
from observability.metrics import Snapshot
from persistence.counts import (
    lines_by_status,
    mail_queued,
    ports_pending_by_age,
    webhook_endpoints_failing,
    workers_alive,
)
from persistence.engine import Database
from persistence.errors import database_unavailable
from persistence.overview import BANDS, AgeBands

# The age bands as metric labels, in persistence.overview.BANDS' order.
AGE_LABELS = dict(zip(BANDS, ("under_1h", "1h_to_24h", "1d_to_3d", "over_3d"), strict=True))
log = logging.getLogger("lineup.metrics")


@dataclass(frozen=True)
class Workers:
    """Which task queue this deployment's workers poll, and how fresh a live one's heartbeat is."""

    task_queue: str = "lineup"
    stale_seconds: float = 30.0


async def snapshot(db: Database, workers: Workers = Workers()) -> Snapshot:  # frozen: one shared default is safe
    now = utcnow()
    bands = AgeBands(now - timedelta(hours=1), now - timedelta(days=1), now - timedelta(days=3))
    async with db.transaction() as session:
        counted = await lines_by_status(session)
        queued = await mail_queued(session)
        ports = await ports_pending_by_age(session, bands)
        failing = await webhook_endpoints_failing(session)
        alive = await workers_alive(session, now - timedelta(seconds=workers.stale_seconds))
    lines = {status.value: counted.get(status.value, 0) for status in LineStatus}
    return Snapshot(
        lines=lines,
        stuck_lines=lines[LineStatus.STUCK.value],
        mail_queued=queued,
        ports_pending={label: ports.get(band, 0) for band, label in AGE_LABELS.items()},
        webhook_endpoints_failing=failing,
        workers_alive={workers.task_queue: 0} | alive,
    )


class SnapshotCache:
    """The last snapshot and when it was read; concurrent scrapes of a stale one wait for one query."""

    def __init__(self, seconds: float, workers: Workers | None = None) -> None:
        self.seconds = seconds
        self.workers = workers or Workers()
        self._value: Snapshot | None = None
        self._read_at = 0.0
        self._lock = asyncio.Lock()

    async def get(self, db: Database) -> Snapshot:
        async with self._lock:
            if self._value is None or time.monotonic() - self._read_at >= self.seconds:
                self._value = await self._read(db)
                self._read_at = time.monotonic()
            return self._value

    async def _read(self, db: Database) -> Snapshot:
        try:
            return await snapshot(db, self.workers)
        except Exception as error:  # only an outage is answered; anything else is raised again
            if not database_unavailable(error):
                raise
            log.warning("metrics: database unavailable", extra={"fields": {"error": type(error).__name__}})
            return Snapshot(database_up=False)
