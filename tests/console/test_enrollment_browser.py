"""The console's enrollment page in a real chromium (issue 21): a line stuck on "915 SIM already in use" is
reached from the stuck list, gets a new SIM, is retried and turns ACTIVE; its timeline shows the refusal, the
correction (the field, never its value), the retry and the activation. The screenshot is docs/webhooks.md's."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from sqlmodel import select

from models.auth import AuditEntry
from tests.support.builders import new_iccid
from tests.support.console import PASSWORD, screenshot
from tests.support.stuck_lines import PACED, SIM_IN_USE, stuck_on_a_sim_in_use


async def sign_in(page: Any) -> None:
    await page.fill("#username", "demo.support")
    await page.fill("#password", PASSWORD)
    await page.click("button[type=submit]")


async def until_status(page: Any, section: Any, wanted: str, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while (status := await section.locator("h2 .status").inner_text()) != wanted:
        assert time.monotonic() < deadline, f"the line stayed {status}"
        await asyncio.sleep(0.3)
        await page.reload()


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_a_line_stuck_on_a_sim_in_use_gets_a_new_sim_and_turns_active(stack, page):
    stuck = await stuck_on_a_sim_in_use(stack, new_iccid())
    await page.goto("/console/login")
    await sign_in(page)
    await page.goto("/console/stuck")
    await page.locator(f'tr[data-enrollment-id="{stuck}"] td.id a').first.click()
    assert page.url.endswith(f"/console/enrollments/{stuck}")
    section = page.locator(f'section.line[data-enrollment-id="{stuck}"]')
    assert await section.locator("dd.problem").inner_text() == SIM_IN_USE
    assert "carrier refused" in await section.locator("table.timeline").inner_text()

    await section.locator("input[name=uiccid]").fill("8901")  # checked as at creation
    await section.get_by_role("button", name="Replace SIM").click()
    assert (
        "SIM (ICCID)" in await page.locator(".error").inner_text()
        or "uiccid" in await page.locator(".error").inner_text()
    )

    sim = new_iccid()
    section = page.locator(f'section.line[data-enrollment-id="{stuck}"]')
    await section.locator("input[name=uiccid]").fill(sim)
    await section.get_by_role("button", name="Replace SIM").click()
    assert "Correction saved" in await page.locator(".notice").inner_text()
    await page.locator(f'section.line[data-enrollment-id="{stuck}"]').get_by_role("button", name="Retry").click()
    assert "Retry sent" in await page.locator(".notice").inner_text()
    section = page.locator(f'section.line[data-enrollment-id="{stuck}"]')
    await until_status(page, section, "ACTIVE")

    rows = section.locator("table.timeline tbody tr")
    timeline = [await rows.nth(i).get_attribute("data-type") for i in range(await rows.count())]
    order = ["line.carrier_refused", "line.stuck", "line.corrected", "line.retried", "line.activated"]
    assert [kind for kind in timeline if kind in order] == order, timeline
    text = await section.locator("table.timeline").inner_text()
    assert "field uiccid" in text and sim not in text  # the field, never its value
    assert "support:demo.support" in text
    assert await section.locator("dd.mdn").inner_text() != "—"
    await screenshot(page, "enrollment-timeline")

    async with stack.db.transaction() as session:
        audited = (await session.exec(select(AuditEntry).where(AuditEntry.agent_username == "demo.support"))).all()
    assert {(entry.action, entry.msg_code) for entry in audited} >= {
        ("console_replace_sim", "RESTAPI000"),
        ("retry_enrollment", "RESTAPI000"),
    }
