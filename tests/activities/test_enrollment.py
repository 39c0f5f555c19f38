"""EnrollmentActivities with ActivityEnvironment against the sandbox's carrier: an activation that a retry
repeats without a second row, event or carrier line; a refusal recorded and final, an outage retried; the line's
status, its SIM, the line inquiry and the carrier list."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from models.enrollment.lines import CarrierCall, InquiryRequest, LineState, LineStatus, SimChange
from tests.support.builders import new_iccid
from tests.support.lines import activated_once, event_types, stored_line
from tests.support.received import carrier_down, carrier_lines, retried, with_customer


async def test_activate_and_record_retried_gives_one_line_one_number(api, activities, sandbox_url):
    enrollment_id = await with_customer(api)
    call = CarrierCall(enrollment_id, "DEMO", f"line-{enrollment_id}:activate:0")
    activated = await ActivityEnvironment().run(activities.activate_and_record, call)
    assert await retried().run(activities.activate_and_record, call) == activated
    await activated_once(api, sandbox_url, enrollment_id, activated)


async def test_a_sim_another_line_holds_is_a_final_refusal_in_the_lines_events(api, activities):
    sim = new_iccid()
    holder = await with_customer(api, phone_type="4G", uiccid=sim)
    await ActivityEnvironment().run(activities.activate_and_record, CarrierCall(holder, "DEMO", f"{holder}:0"))
    refused = await with_customer(api, phone_type="4G", uiccid=sim)
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(activities.activate_and_record, CarrierCall(refused, "DEMO", f"{refused}:0"))
    assert (failure.value.type, failure.value.non_retryable) == ("CarrierRejected", True)
    assert failure.value.message == "915 SIM already in use"
    assert (await event_types(api, refused))[-1] == "line.carrier_refused"
    assert (await stored_line(api, refused)).status == LineStatus.ACTIVATING  # its workflow decides what next


async def test_a_carrier_outage_is_retried(api, activities, sandbox_url):
    enrollment_id = await with_customer(api)
    call = CarrierCall(enrollment_id, "DEMO", f"{enrollment_id}:0")
    async with carrier_down(sandbox_url):
        with pytest.raises(ApplicationError) as failure:
            await ActivityEnvironment().run(activities.activate_and_record, call)
    assert (failure.value.type, failure.value.non_retryable) == ("Unavailable", False)
    assert await carrier_lines(sandbox_url, enrollment_id) == []


async def test_set_line_status_repeated_writes_one_event(api, activities):
    enrollment_id = await with_customer(api)
    stuck = LineState(enrollment_id, LineStatus.STUCK, "915 SIM already in use")
    await ActivityEnvironment().run(activities.set_line_status, stuck)
    await ActivityEnvironment().run(activities.set_line_status, stuck)
    line = await stored_line(api, enrollment_id)
    assert (line.status, line.last_error) == (LineStatus.STUCK, "915 SIM already in use")
    assert (await event_types(api, enrollment_id)).count("line.stuck") == 1


async def test_change_sim_replaces_the_attached_one_once(api, activities):
    enrollment_id = await with_customer(api, phone_type="4G", uiccid=new_iccid())
    sim, before = new_iccid(), await event_types(api, enrollment_id)
    await ActivityEnvironment().run(activities.change_sim, SimChange(enrollment_id, None, sim))
    await ActivityEnvironment().run(activities.change_sim, SimChange(enrollment_id, None, sim))
    assert (await stored_line(api, enrollment_id)).iccid == sim
    assert await event_types(api, enrollment_id) == [*before, "line.sim_attached"]


async def test_line_inquiry_of_an_active_line_and_the_carrier_list(api, activities):
    enrollment_id = await with_customer(api)
    activated = await ActivityEnvironment().run(
        activities.activate_and_record, CarrierCall(enrollment_id, "DEMO", f"{enrollment_id}:0")
    )
    answer = await ActivityEnvironment().run(activities.line_inquiry, InquiryRequest(enrollment_id, "DEMO"))
    assert (answer.status_code, answer.mdn) == ("00", activated.mdn)
    listed = await ActivityEnvironment().run(activities.carriers, "DEMO")
    assert {"ATT", "TMB", "VER"} <= {entry.carrier for entry in listed.carriers}
