"""The console's enrollment page, fixes, bulk retry and webhooks over HTTP (issue 21): the timeline from the
event log, forms checked (CSRF, the SIM and port rules, the line's state), corrections recorded by field name,
a port needing resolution corrected and resubmitted, endpoints added (the secret shown once), listed with their
deliveries, sent again and disabled; another vendor's lines out of sight."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from sqlmodel import select

from models.events import LineEvent, WebhookDelivery
from tests.support.builders import create, line, new_iccid
from tests.support.console import csrf_of, sign_in
from tests.support.ports import ported_line
from tests.support.stuck_lines import PACED, stuck_on_a_sim_in_use
from tests.support.webhooks import received, register


async def signed_in(stack: Any) -> tuple[Any, str]:
    http = stack.http
    assert (await sign_in(http)).status_code == 303
    page = await http.get("/console")
    return http, csrf_of(page.text)


async def events_of(stack: Any, enrollment_id: str) -> list[LineEvent]:
    async with stack.db.transaction() as session:
        query = select(LineEvent).where(LineEvent.enrollment_id == enrollment_id)
        return list((await session.exec(query)).all())


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_enrollment_page_fixes_and_bulk_retry(stack):
    stuck = await stuck_on_a_sim_in_use(stack, new_iccid())
    other = await stuck_on_a_sim_in_use(stack, new_iccid(), vendor="OTHER")
    http, csrf = await signed_in(stack)
    listed = await http.get("/console")
    assert f'/console/enrollments/{stuck}"' in listed.text  # reached from the list
    page = await http.get(f"/console/enrollments/{stuck}")
    assert page.status_code == 200 and "carrier refused" in page.text and "915" in page.text
    assert (await http.get(f"/console/enrollments/{other}")).status_code == 404

    forged = await http.post(f"/console/lines/{stuck}/sim", data={"uiccid": new_iccid()})
    assert forged.status_code == 403
    for form, words in (({"uiccid": "8901"}, "check digit"), ({"uiccid": "", "esn": ""}, "at least one corrected")):
        refused = await http.post(f"/console/lines/{stuck}/sim", data={"csrf": csrf, **form})
        assert refused.status_code == 400 and words in refused.text, refused.text
    on_other = await http.post(f"/console/lines/{other}/sim", data={"csrf": csrf, "uiccid": new_iccid()})
    assert on_other.status_code == 404

    sim = new_iccid()
    fixed = await http.post(f"/console/lines/{stuck}/sim", data={"csrf": csrf, "uiccid": sim})
    assert (fixed.status_code, fixed.headers["location"]) == (303, f"/console/enrollments/{stuck}?done=corrected")
    corrected = [e for e in await events_of(stack, stuck) if e.type == "line.corrected"]
    assert [json.loads(e.data)["field"] for e in corrected] == ["uiccid"] and sim not in corrected[0].data

    many = await http.post("/console/retry-many", data={"csrf": csrf, "error_contains": "SIM ALREADY"})
    assert many.status_code == 200 and "Retry sent to 1 lines." in many.text
    for _ in range(150):
        if "line.activated" in {e.type for e in await events_of(stack, stuck)}:
            break
        await asyncio.sleep(0.2)
    kinds = [e.type for e in sorted(await events_of(stack, stuck), key=lambda e: e.id or 0)]
    assert kinds[-3:] == ["line.retried", "line.activation_attempted", "line.activated"], kinds
    again = await http.post(f"/console/lines/{stuck}/sim", data={"csrf": csrf, "uiccid": new_iccid()})
    assert again.status_code == 409 and "Only a stuck line" in again.text  # ACTIVE now


@pytest.mark.parametrize("settings_overrides", [{"port_poll_seconds": 0.5}])
async def test_a_port_needing_resolution_is_corrected_and_resubmitted(stack):
    ported, _, _ = await ported_line(stack, port_account_number="ACC0000")
    http, csrf = await signed_in(stack)
    for _ in range(150):
        if "port.resolution_required" in {e.type for e in await events_of(stack, ported)}:
            break
        await asyncio.sleep(0.2)
    page = await http.get(f"/console/enrollments/{ported}")
    assert "Correct and resubmit" in page.text and "resolution required" in page.text
    done = await http.post(f"/console/lines/{ported}/port", data={"csrf": csrf, "port_account_number": "ACC12345"})
    assert (done.status_code, done.headers["location"]) == (303, f"/console/enrollments/{ported}?done=resubmitted")
    corrected = [json.loads(e.data) for e in await events_of(stack, ported) if e.type == "line.corrected"]
    assert [fact["field"] for fact in corrected] == ["account_number"]
    assert "ACC12345" not in json.dumps(corrected)


async def test_webhooks_in_the_console(stack):
    http, csrf = await signed_in(stack)
    refused = await http.post("/console/webhooks", data={"csrf": csrf, "url": "http://10.0.0.8/hook"})
    assert refused.status_code == 400 and "https" in refused.text
    added = await http.post(
        "/console/webhooks", data={"csrf": csrf, "url": f"{stack.sandbox}/sandbox/webhooks", "events": "line.received"}
    )
    assert added.status_code == 200 and "whsec_" in added.text
    page = await http.get("/console/webhooks")
    assert "whsec_" not in page.text and "line.received" in page.text  # the secret was shown once

    enrollment_id = await stack.new_enrollment_id()

    assert (await stack.call("/customer", create(enrollment_id, line(enrollment_id))))["msg_code"] == "RESTAPI000"
    for _ in range(100):
        if len(await received(stack, {enrollment_id})) == 1:
            break
        await asyncio.sleep(0.2)
    async with stack.db.transaction() as session:
        [delivery] = (await session.exec(select(WebhookDelivery))).all()
    page = await http.get("/console/webhooks")
    assert "DELIVERED" in page.text and "HTTP 200" in page.text
    again = await http.post(f"/console/deliveries/{delivery.id}/send-again", data={"csrf": csrf})
    assert again.status_code == 303
    for _ in range(100):
        if len(got := await received(stack, {enrollment_id})) == 2:
            break
        await asyncio.sleep(0.2)
    assert len({json.loads(item["body"])["id"] for item in got}) == 1  # the same event, the same id
    endpoint_id = page.text.split('data-endpoint-id="')[1].split('"')[0]
    disabled = await http.post(f"/console/webhooks/{endpoint_id}/disable", data={"csrf": csrf})
    assert disabled.status_code == 303
    page = await http.get("/console/webhooks")
    assert "Disabled by support (demo.support)" in page.text


async def test_another_vendors_delivery_cannot_be_sent_again(stack):
    other = await register(stack, vendor="OTHER")
    http, csrf = await signed_in(stack)
    refused = await http.post(f"/console/webhooks/{other.endpoint.public_id}/disable", data={"csrf": csrf})
    assert refused.status_code == 400 and "No such endpoint" in refused.text
    assert (await http.post("/console/deliveries/999999/send-again", data={"csrf": csrf})).status_code == 400
