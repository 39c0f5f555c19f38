"""The soak's machinery end to end, briefly (issue 19, item 17): production's processes on a fresh PostgreSQL
database under restart loops, two channels for ~20 s, one worker SIGKILLed and restarted; then every counter
is read from the database and the sandbox. `make soak` runs the same for minutes."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from cli.run import port_is_free
from soak.options import Options
from soak.runner import soak
from tests.support.databases import PG_ADMIN_DB, PG_HOST, PG_PORT, PG_USER

pytestmark = pytest.mark.slow
ADMIN_URL = f"postgresql://{PG_USER}@{PG_HOST}:{PG_PORT}/{PG_ADMIN_DB}"
PORTS = ("LINEUP_API_PORT", "LINEUP_SANDBOX_PORT", "LINEUP_SANDBOX_SMTP_PORT", "LINEUP_TEMPORAL_UI_PORT")


async def test_a_short_soak_counts_every_accepted_line_once_through_a_worker_kill(postgres_url: str, tmp_path: Path):
    """`postgres_url`: without PostgreSQL the test skips (fails under CI), as every PostgreSQL test does."""
    options = Options(
        minutes=0.35,
        channels=2,
        rate=0.5,
        kill_every=24,
        outage_seconds=0,
        port_complete_seconds=4,
        settle_minutes=1.5,
        data_dir=tmp_path / "soak",
        postgres=ADMIN_URL,
        seed=19,
    )
    result = await soak(options)

    counts = result.counts
    assert counts.orders["accepted"] >= 2, result.table
    assert counts.lines["accepted"] == counts.lines["settled"] > 0, result.table
    assert counts.lines["accepted_portin"] == counts.lines["ports_completed"], result.table
    assert (counts.lost_total, counts.duplicated_total) == (0, 0), result.table
    # The one fault: worker-1 SIGKILLed half a period in, and its restart loop started it again.
    assert [event.kind for event in result.run.events] == ["kill-worker"]
    assert [(exit_.service, exit_.code) for exit_ in result.exits] == [("worker-1", -9)]
    answered = {row.label: row.answered for row in result.latencies}
    assert answered["all create calls"] >= counts.orders["accepted"]
    assert "goals       0 lost: met; 0 duplicated: met" in result.table

    written = json.loads(result.json_path.read_text())
    assert written["counts"]["lines"] == counts.lines and len(written["orders"]) == len(result.run.orders)
    # Every event reached the soak's receiver, and its lag is reported (issue 35).
    lag = written["webhook_lag"]
    assert lag["events"] > 0 and lag["not_received"] == 0 and lag["p99_s"] is not None, lag
    assert f"webhooks    {lag['events']} events received, lag p50" in result.table
    settings = written["settings"]
    assert all(port_is_free("127.0.0.1", int(settings[name])) for name in PORTS)  # every process stopped
    database = urlsplit(settings["LINEUP_DATABASE_URL"]).path.lstrip("/")
    admin = await asyncpg.connect(ADMIN_URL)
    try:
        assert await admin.fetchval("SELECT count(*) FROM pg_database WHERE datname = $1", database) == 0
    finally:
        await admin.close()
