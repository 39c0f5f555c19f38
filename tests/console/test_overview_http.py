"""The console's overview over HTTP: each chart's figures against rows the test inserts (two vendors, so the
other's never show), the page with no lines at all, a panel whose table cannot be read named on a page that
still answers, no personal data in any figure or label, and the statements it costs, the same however many rows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy import text

from api.console.overview import bucket, hours_ending
from models.events import LineEvent
from models.mail import MailOutbox
from models.porting import PortIn
from models.types import utcnow
from tests.support import overview_rows as rows
from tests.support.app import make_settings
from tests.support.console import sign_in
from tests.support.databases import postgres_database
from tests.support.figures import figures, hourly, statements

SIM = "915 SIM already in use"
OUTAGE = "The carrier is unavailable: HTTP 503"
# What one overview costs on SQLite, each an aggregate (activations, stuck, ports, carriers, endpoints, mail)
# and the console session's own: the same with 5 rows or 5,000.
PANEL_QUERIES = 6


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(request, sqlite_url) -> AsyncIterator[str]:
    """Both engines, each test on a database of its own (the figures are counts of everything there)."""
    if request.param == "sqlite":
        yield sqlite_url
        return
    async with postgres_database() as url:
        yield url


@pytest.fixture
def settings(data_dir, database_url, settings_overrides):
    return make_settings(data_dir, database_url, **settings_overrides)


def hour_label(at) -> str:
    return f"{bucket(at)}:00"


async def seed(api, vendor: str, scale: int = 1) -> dict[str, list[str]]:
    """One vendor's rows for every panel; `scale` multiplies the lines, not what each panel shows."""
    vendor_id = (await rows.vendor_ids(api.db))[vendor]
    now = utcnow()
    made: dict[str, list[str]] = {name: [] for name in ("activated", "sim", "outage", "received", "ported")}

    def add(kind: str, n: int) -> list[str]:
        made[kind] += [rows.new_eid() for _ in range(n)]
        return made[kind][-n:]

    lines = [rows.line(eid, vendor_id, carrier="ATT") for eid in add("activated", 4 * scale)]
    lines += [
        rows.line(eid, vendor_id, status="STUCK", error=SIM, since=now - timedelta(hours=3)) for eid in add("sim", 3)
    ]
    lines += [
        rows.line(eid, vendor_id, status="STUCK", error=OUTAGE, since=now - timedelta(minutes=20))
        for eid in add("outage", 1)
    ]
    lines += [
        rows.line(eid, vendor_id, status="RECEIVED", since=now - timedelta(hours=1)) for eid in add("received", 1)
    ]
    lines += [rows.line(eid, vendor_id, status="PORT_PENDING", plan_id=104) for eid in add("ported", 5)]
    await rows.lines(api.db, lines)

    activated = made["activated"]
    events = [rows.event(eid, vendor_id, "line.activated", now - timedelta(hours=1)) for eid in activated[:3]]
    events += [rows.event(activated[3], vendor_id, "line.activated_later", now - timedelta(hours=30))]
    events += [rows.event(eid, vendor_id, "line.activated", now - timedelta(hours=50)) for eid in activated[4:]]
    two_hours_ago = now - timedelta(hours=2)
    events += [rows.event(activated[0], vendor_id, "line.carrier_refused", two_hours_ago, code="915", text="SIM")] * 1
    events += [rows.event(activated[1], vendor_id, "line.carrier_refused", two_hours_ago, code="915", text="SIM")]
    events += [rows.event(made["outage"][0], vendor_id, "line.stuck", two_hours_ago, error=OUTAGE)]
    events += [rows.event(made["sim"][0], vendor_id, "line.stuck", two_hours_ago, error=SIM)]  # not an outage
    await rows.insert_rows(api.db, LineEvent, events)

    ported = made["ported"]
    ports = [
        rows.port(ported[0], status="SUBMITTED", carrier="VER", requested=now - timedelta(minutes=10)),
        rows.port(ported[1], status="CONFIRMED", carrier=" tmb", requested=now - timedelta(hours=5)),
        rows.port(ported[2], status="RESOLUTION_REQUIRED", carrier="Pat's Phones", requested=now - timedelta(days=2)),
        rows.port(ported[3], status="SUBMITTED", carrier="VER", requested=now - timedelta(days=10)),
        rows.port(ported[4], status="COMPLETED", carrier="VER", requested=now - timedelta(days=1)),  # final: left out
    ]
    await rows.insert_rows(api.db, PortIn, ports)

    made["endpoints"] = [
        await rows.endpoint(api.db, vendor_id, failing_since=now - timedelta(hours=2), undelivered=3),
        await rows.endpoint(api.db, vendor_id, failing_since=None, active=False, undelivered=1),
    ]
    await rows.endpoint(api.db, vendor_id, failing_since=None)  # healthy: not listed
    mails = [rows.mail(vendor_id, status="QUEUED", at=now - timedelta(hours=h)) for h in (3, 1)]
    mails += [rows.mail(vendor_id, status="REJECTED", at=now - timedelta(hours=h)) for h in (1, 60)]
    mails += [rows.mail(vendor_id, status="SENT", at=now)]
    await rows.insert_rows(api.db, MailOutbox, mails)
    return made


async def test_every_figure_is_the_rows_of_the_signed_in_vendor(api, console):
    demo = await seed(api, "DEMO")
    other = await seed(api, "OTHER", scale=3)
    await sign_in(console)
    page = await console.get("/console")
    assert page.status_code == 200, page.text
    tables = figures(page.text)

    now = utcnow()
    assert tables["activations"][0] == ["hour (UTC)", "lines activated"]
    assert len(tables["activations"]) == 1 + 48
    assert hourly(tables["activations"]) == {
        hour_label(now - timedelta(hours=1)): [3],
        hour_label(now - timedelta(hours=30)): [1],
    }  # the one 50 hours ago is outside the window; OTHER's 12 lines are not DEMO's

    never_started = "Never started: the workflow engine was unavailable when it was accepted"
    assert tables["stuck"][1:] == [[SIM, "3"], [never_started, "1"], [OUTAGE, "1"]]  # most lines, then by text
    groups = page.text.split('data-error="')
    sim_group = next(group for group in groups if group.startswith(SIM))
    assert all(f"/console/enrollments/{eid}" in sim_group for eid in demo["sim"])
    assert not any(eid in page.text for eid in other["sim"] + other["outage"])

    assert tables["ports"] == [
        ["", "under 1 h", "1–24 h", "1–3 days", "older", "in all"],
        ["TMB", "0", "1", "0", "0", "1"],
        ["VER", "1", "0", "0", "1", "2"],
        ["other", "0", "0", "1", "0", "1"],  # a carrier name a channel typed is never a label
        ["all", "1", "1", "1", "1", "4"],
    ]

    hour = hour_label(now - timedelta(hours=2))
    assert hourly(tables["carrier-ATT"]) == {hour: [2, 0]}
    assert tables["carrier-ATT"][0] == ["hour (UTC)", "refusals", "outages"]
    assert hourly(tables["carrier-TMB"]) == {hour: [0, 1]}  # no carrier asked: the plan's; a 915 stuck is no outage
    assert "carrier-VER" not in tables

    assert tables["endpoints"][1:] == [  # failing longest first, then those disabled for failing
        [demo["endpoints"][0], "failing for 2 h", "3", "503"],
        [demo["endpoints"][1], "disabled", "1", "503"],
    ]
    assert not any(endpoint in page.text for endpoint in other["endpoints"])
    assert tables["mail"] == [["2 (oldest 3 h)"], ["1"]]
    assert "Pat's Phones" not in page.text and "Pat&#39;s Phones" not in page.text


async def test_with_no_lines_at_all_every_panel_says_so(api, console):
    await sign_in(console)
    page = await console.get("/console")
    assert page.status_code == 200
    tables = figures(page.text)
    assert hourly(tables["activations"]) == {} and len(tables["activations"]) == 49
    for words in (
        "No line is waiting for support.",
        "No port is pending.",
        "No refusal or outage in the last 48",
        "Every endpoint is delivering.",
    ):
        assert words in page.text
    assert tables["mail"] == [["0"], ["0"]]
    assert "Could not be read" not in page.text


async def test_a_panel_that_cannot_be_read_is_named_and_the_others_still_show(api, console):
    await seed(api, "DEMO")
    async with api.db.transaction() as session:
        await session.execute(text("ALTER TABLE mail_outbox RENAME TO mail_outbox_away"))  # this test's own database
    await sign_in(console)
    page = await console.get("/console")
    assert page.status_code == 200
    assert "Could not be read just now: Mail undelivered. The other figures are current." in page.text
    tables = figures(page.text)
    assert "mail" not in tables and sum(sum(v) for v in hourly(tables["activations"]).values()) == 4


async def test_the_page_costs_the_same_statements_for_five_lines_or_five_thousand(api, console):
    await sign_in(console)
    await seed(api, "DEMO")
    with statements(api.db) as few:
        assert (await console.get("/console")).status_code == 200
    await seed(api, "DEMO", scale=1000)
    with statements(api.db) as many:
        assert (await console.get("/console")).status_code == 200
    assert len(few) == len(many)
    panels = [s for s in many if "GROUP BY" in s or "mail_outbox" in s]
    assert len(panels) == PANEL_QUERIES, panels


def test_the_hours_are_the_last_48_ending_with_this_one():
    now = utcnow()
    hours = hours_ending(now)
    assert len(hours) == 48 and hours[-1] <= now < hours[-1] + timedelta(hours=1)
    assert hours[0] == hours[-1] - timedelta(hours=47)
