"""The overview at volume: 100,000 lines of one vendor and a million of its events (ten a line, over the last
47 hours), inserted in bulk. The page runs the same statements as on an empty database, answers
within the bound, and prints its time (docs/console.md states it: `-s` shows the line)."""

from __future__ import annotations

import statistics
import time
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from models.events import LineEvent
from models.types import utcnow
from tests.support import overview_rows as rows
from tests.support.app import make_settings
from tests.support.console import sign_in
from tests.support.databases import postgres_database
from tests.support.figures import figures, hourly, statements

LINES, EVENTS_PER_LINE = 100_000, 10
# A line's ten events; one line in 50 refused by the carrier, one in 100 stuck in an outage.
KINDS = (
    "line.received",
    "line.customer_created",
    "line.sim_attached",
    "line.activation_attempted",
    "line.activated",
    "payment.recorded",
    "tax.collected",
    "line.corrected",
    "port.submitted",
    "port.status_changed",
)
OUTAGE = "The carrier is unavailable: HTTP 503"


def kind_of(n: int, k: int) -> tuple[str, dict[str, str]]:
    """The k-th event of the n-th line of a batch: a refusal or an outage in place of a later event for some."""
    if k == 7 and n % 50 == 0:
        return "line.carrier_refused", {"code": "915", "text": "SIM already in use"}
    if k == 9 and n % 100 == 1:
        return "line.stuck", {"error": OUTAGE}
    return KINDS[k], {}


BOUND_SECONDS = 5.0  # on the shared 2-core machine, with other test processes beside it


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(request, sqlite_url) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield sqlite_url
        return
    async with postgres_database() as url:
        yield url


@pytest.fixture
def settings(data_dir, database_url):
    return make_settings(data_dir, database_url)


async def fill(api) -> None:
    vendor_id = (await rows.vendor_ids(api.db))["DEMO"]
    now = utcnow()
    for start in range(0, LINES, 10_000):
        batch = [rows.new_eid() for _ in range(10_000)]
        stuck = {eid for n, eid in enumerate(batch) if n % 50 == 0}
        lines = [
            rows.line(
                eid,
                vendor_id,
                status="STUCK" if eid in stuck else "ACTIVE",
                error="915 SIM already in use" if eid in stuck else None,
            )
            for eid in batch
        ]
        await rows.lines(api.db, lines)
        events = [
            rows.event(eid, vendor_id, kind, now - timedelta(minutes=(start + n * 7 + k * 31) % 2820), **facts)
            for n, eid in enumerate(batch)
            for k in range(EVENTS_PER_LINE)
            for kind, facts in [kind_of(n, k)]
        ]
        await rows.insert_many(api.db, LineEvent, events)


@pytest.mark.slow
async def test_the_overview_of_100000_lines_and_a_million_events(api, console, database_url):
    await sign_in(console)
    with statements(api.db) as empty:
        assert (await console.get("/console")).status_code == 200
    await fill(api)
    with statements(api.db) as full:
        page = await console.get("/console")  # and a warm-up
    assert page.status_code == 200 and len(full) == len(empty)
    tables = figures(page.text)
    assert sum(counts[0] for counts in hourly(tables["activations"]).values()) == LINES
    trouble = [sum(counts[i] for counts in hourly(tables["carrier-TMB"]).values()) for i in (0, 1)]
    assert trouble == [LINES // 50, LINES // 100]  # refusals, outages
    assert tables["stuck"][1:] == [["915 SIM already in use", str(LINES // 50)]]
    times = []
    for _ in range(3):
        started = time.perf_counter()
        assert (await console.get("/console")).status_code == 200
        times.append(time.perf_counter() - started)
    engine = "postgresql" if database_url.startswith("postgresql") else "sqlite"
    volume = f"{LINES:,} lines and {LINES * EVENTS_PER_LINE:,} events"
    print(f"\noverview, {volume} ({engine}): {statistics.median(times):.2f} s")
    assert statistics.median(times) < BOUND_SECONDS
