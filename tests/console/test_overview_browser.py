"""The overview in a real headless chromium, against the stack with a real worker: lines refused by the carrier
and lines stuck in a carrier outage made through the API, more history inserted as rows (activations over two
days, pending ports, a failing webhook endpoint, mail); support signs in, lands on the overview and reads each
chart, its figures, and the links to the stuck lines; with the carrier down the page still answers at once.
The screenshot is docs/console.md's (copied from .artifacts/console/overview.png)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from models.events import LineEvent
from models.mail import MailOutbox
from models.porting import PortIn
from models.types import utcnow
from tests.support import overview_rows as rows
from tests.support.builders import new_iccid
from tests.support.console import PASSWORD, screenshot
from tests.support.figures import figures, hourly
from tests.support.stuck_lines import PACED, SIM_IN_USE, stuck_in_an_outage, stuck_on_a_sim_in_use


async def history(stack) -> None:
    """Two days of activations, three pending ports, a failing endpoint and queued mail, as rows."""
    vendor_id = (await rows.vendor_ids(stack.db))["DEMO"]
    now = utcnow()
    activated = [rows.line(rows.new_eid(), vendor_id, carrier="ATT") for _ in range(40)]
    ported = [rows.line(rows.new_eid(), vendor_id, status="PORT_PENDING") for _ in range(3)]
    await rows.lines(stack.db, activated + ported)
    events = [
        rows.event(line["enrollment_id"], vendor_id, "line.activated", now - timedelta(hours=(n * 7) % 47 + 1))
        for n, line in enumerate(activated)
    ]
    await rows.insert_rows(stack.db, LineEvent, events)
    ages = (timedelta(minutes=20), timedelta(hours=9), timedelta(days=5))
    ports = [
        rows.port(line["enrollment_id"], status="SUBMITTED", carrier=carrier, requested=now - age)
        for line, carrier, age in zip(ported, ("VER", "TMB", "VER"), ages, strict=True)
    ]
    await rows.insert_rows(stack.db, PortIn, ports)
    await rows.endpoint(stack.db, vendor_id, failing_since=now - timedelta(minutes=40), undelivered=2)
    await rows.insert_rows(stack.db, MailOutbox, [rows.mail(vendor_id, status="QUEUED", at=now - timedelta(hours=2))])


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_support_signs_in_to_the_overview_and_reads_every_chart(stack, page):
    refused = await stuck_on_a_sim_in_use(stack, new_iccid())
    in_outage = await stuck_in_an_outage(stack)
    await stuck_on_a_sim_in_use(stack, new_iccid(), vendor="OTHER")  # never in DEMO's figures
    await history(stack)

    await page.goto("/console")
    assert page.url.endswith("/console/login")
    await page.fill("#username", "demo.support")
    await page.fill("#password", PASSWORD)
    await page.click("button[type=submit]")
    assert page.url.endswith("/console")
    assert await page.locator("h1").inner_text() == "Overview"
    assert await page.locator("nav a.here").inner_text() == "Overview"

    tables = figures(await page.content())
    assert sum(counts[0] for counts in hourly(tables["activations"]).values()) == 41  # and the SIM's holder
    assert tables["stuck"][1:] == [["The carrier is unavailable: HTTP 503", "2"], [SIM_IN_USE, "1"]]
    assert tables["ports"][-1] == ["all", "1", "1", "0", "1", "3"]
    assert sum(counts[1] for counts in hourly(tables["carrier-TMB"]).values()) == 2  # the two outages
    assert sum(counts[0] for counts in hourly(tables["carrier-TMB"]).values()) == 1  # the refusal
    # Drawn, with the figures in words for a screen reader.
    chart = page.locator('figure[data-chart="activations"] svg[role="img"]')
    assert await chart.locator("rect").count() > 0
    assert "41 lines activated in all" in await chart.locator("desc").text_content()
    assert await page.locator("figure[data-chart] svg title, figure[data-chart] svg desc").count() > 0

    group = page.locator(f'tr[data-error="{SIM_IN_USE}"]')
    await group.get_by_role("link", name=refused).click()
    assert page.url.endswith(f"/console/enrollments/{refused}")
    await page.goto("/console")
    await screenshot(page, "overview")

    await stack.faults(fault_rate=1.0)  # the carrier down: the page reads only the database
    started = time.monotonic()
    await page.reload()
    assert time.monotonic() - started < 3
    outage_group = page.locator('tr[data-error="The carrier is unavailable: HTTP 503"]')
    assert {await link.inner_text() for link in await outage_group.locator("td.id a").all()} == set(in_outage)
