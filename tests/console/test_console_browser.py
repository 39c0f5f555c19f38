"""The support console in a real headless chromium, against the API served over HTTP with a real worker, the
Temporal dev server and the sandbox: support signs in, retries a stuck line and sees it turn active, activates a
line waiting for activation, finds lines by enrollment id, MDN and customer id, and sees the port-ins waiting for
a correction; another vendor's lines stay out of sight. Screenshots go to .artifacts/console."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from sqlmodel import select

from models.auth import AuditEntry
from models.enrollment.lines import Line
from models.porting import PortIn
from tests.support.builders import new_iccid
from tests.support.console import PASSWORD, screenshot
from tests.support.lines import waiting_line
from tests.support.ports import FAST_POLLS, ported_line
from tests.support.stuck_lines import PACED, SIM_IN_USE, stuck_in_an_outage, stuck_on_a_sim_in_use


async def sign_in(page: Any, username: str = "demo.support", password: str = PASSWORD) -> None:
    await page.fill("#username", username)
    await page.fill("#password", password)
    await page.click("button[type=submit]")


async def row(page: Any, enrollment_id: str) -> Any:
    return page.locator(f'tr[data-enrollment-id="{enrollment_id}"]')


async def wait_for_status(page: Any, enrollment_id: str, wanted: str, within: float = 30.0) -> None:
    """Reloads the line's search page until its status reads `wanted` (the console has no JavaScript)."""
    deadline = time.monotonic() + within
    while True:
        status = await (await row(page, enrollment_id)).locator(".status").inner_text()
        if status == wanted:
            return
        assert time.monotonic() < deadline, f"line {enrollment_id} stayed {status}"
        await asyncio.sleep(0.3)
        await page.reload()


async def stored(stack: Any, enrollment_id: str) -> Line:
    async with stack.db.transaction() as session:
        found: Line = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
        return found


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_support_signs_in_retries_a_stuck_line_and_sees_it_turn_active(stack, page):
    sim = new_iccid()
    stuck = await stuck_on_a_sim_in_use(stack, sim)
    others = await stuck_on_a_sim_in_use(stack, new_iccid(), vendor="OTHER")
    in_outage = await stuck_in_an_outage(stack)  # two more rows, with the carrier's 503 as their last error

    await page.goto("/console")
    assert page.url.endswith("/console/login")
    await sign_in(page, password="wrong-pass")
    assert await page.locator(".error").inner_text() == "Invalid username or password"
    await sign_in(page, "demo.agent")
    assert await page.locator(".error").inner_text() == "Invalid username or password"  # no oracle (issue 19, 10)
    await sign_in(page)
    assert page.url.endswith("/console")  # the overview (test_overview_browser.py)
    await page.click("nav >> text=Stuck lines")

    line_row = await row(page, stuck)
    assert await line_row.locator("td.problem").inner_text() == SIM_IN_USE
    assert await line_row.locator(".status").inner_text() == "STUCK"
    link = await line_row.get_by_role("link", name="Temporal UI").get_attribute("href")
    assert link == f"http://127.0.0.1:8233/namespaces/default/workflows/line-{stuck}"
    assert await page.locator("tbody tr").count() == 3  # longest waiting first
    for enrollment_id in in_outage:
        assert "503" in await (await row(page, enrollment_id)).locator("td.problem").inner_text()
    assert await (await row(page, others)).count() == 0  # OTHER's stuck line is not DEMO support's
    await screenshot(page, "stuck-lines")

    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})  # support freed the SIM
    await line_row.get_by_role("button", name="Retry").click()
    assert "/console/search?q=" in page.url
    assert "Retry sent" in await page.locator(".notice").inner_text()
    await wait_for_status(page, stuck, "ACTIVE")
    await screenshot(page, "retried-line-active")
    assert (await stored(stack, stuck)).status == "ACTIVE"
    async with stack.db.transaction() as session:
        audited = (await session.exec(select(AuditEntry).where(AuditEntry.action == "retry_enrollment"))).all()
    assert [(entry.agent_username, entry.msg_code) for entry in audited] == [("demo.support", "RESTAPI000")]

    await page.goto(f"/console/search?q={others}")
    assert await page.locator(".empty").inner_text() == f"No line of DEMO matches “{others}”."


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_support_activates_a_waiting_line_finds_it_by_mdn_and_customer_id_and_sees_ports_to_fix(stack, page):
    waiting = await waiting_line(stack)
    ported, _, number = await ported_line(stack, port_account_number="ACC0000")
    await page.goto("/console/login")
    await sign_in(page)

    await page.click("text=Waiting for activation")
    waiting_row = await row(page, waiting)
    assert await waiting_row.locator(".status").inner_text() == "WAITING_ACTIVATION"
    await screenshot(page, "waiting-for-activation")
    await waiting_row.get_by_role("button", name="Activate").click()
    assert await page.locator(".notice").inner_text() == "Line activated."
    await wait_for_status(page, waiting, "ACTIVE")
    await screenshot(page, "activated-line")

    line = await stored(stack, waiting)
    assert line.mdn and line.customer_id
    for wanted in (waiting, line.mdn, line.customer_id):
        await page.fill("input[name=q]", wanted)
        await page.click("form.search button")
        assert await (await row(page, waiting)).locator(".status").inner_text() == "ACTIVE", wanted

    deadline = time.monotonic() + 30
    while await port_status(stack, ported) != "RESOLUTION_REQUIRED":
        assert time.monotonic() < deadline, "the port-in never asked for a correction"
        await asyncio.sleep(0.3)
    await page.click("text=Port-ins awaiting resolution")
    port_row = await row(page, ported)
    assert await port_row.locator("td.problem").inner_text() == "8A Account number required or incorrect"
    assert number in await port_row.inner_text()
    link = await port_row.get_by_role("link", name="Temporal UI").get_attribute("href")
    assert link.endswith(f"/workflows/port-{ported}")
    await screenshot(page, "ports-awaiting-resolution")


async def port_status(stack: Any, enrollment_id: str) -> str | None:
    async with stack.db.transaction() as session:
        port = await session.get(PortIn, enrollment_id)
        return port.status if port is not None else None
