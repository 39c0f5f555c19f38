"""assign_esim_profile with ActivityEnvironment against the sandbox's carrier: a line without a SIM gets one profile,
sealed in its row, however often it is asked; a line with a SIM gets none; an outage is retried."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.enrollment import PHYSICAL_SIM, EnrollmentActivities
from models.crypto import EsimDocument
from models.enrollment.lines import EsimAssigned, EsimRequest
from tests.support.builders import new_iccid
from tests.support.lines import event_types, stored_line
from tests.support.received import carrier_down, received, retried


@pytest.fixture
def activities(carrier, db, cipher) -> EnrollmentActivities:
    return EnrollmentActivities(carrier, db, cipher)


async def test_a_line_without_a_sim_gets_one_profile_sealed_in_its_row(api, activities, cipher):
    [enrollment_id] = await received(api, {})
    request = EsimRequest(enrollment_id, "DEMO")
    assert await ActivityEnvironment().run(activities.assign_esim_profile, request) == EsimAssigned(reserved=True)
    assert await retried().run(activities.assign_esim_profile, request) == EsimAssigned(reserved=False)
    line = await stored_line(api, enrollment_id)
    assert line.esim_profile is not None
    profile = cipher.open(line.esim_profile, EsimDocument)
    assert line.is_esim and line.iccid == profile["iccid"] and profile["activation_code"].startswith("LPA:1$")
    assert (await event_types(api, enrollment_id)).count("line.esim_assigned") == 1


async def test_a_line_with_a_sim_gets_no_profile(api, activities):
    [enrollment_id] = await received(api, {"phone_type": "4G", "uiccid": new_iccid()})
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(activities.assign_esim_profile, EsimRequest(enrollment_id, "DEMO"))
    assert (failure.value.message, failure.value.type, failure.value.non_retryable) == (
        PHYSICAL_SIM,
        "CarrierRejected",
        True,
    )
    assert (await stored_line(api, enrollment_id)).esim_profile is None


async def test_a_carrier_outage_is_retried_and_seals_nothing(api, activities, sandbox_url):
    [enrollment_id] = await received(api, {})
    async with carrier_down(sandbox_url):
        with pytest.raises(ApplicationError) as failure:
            await ActivityEnvironment().run(activities.assign_esim_profile, EsimRequest(enrollment_id, "DEMO"))
    assert (failure.value.type, failure.value.non_retryable) == ("Unavailable", False)
    assert (await stored_line(api, enrollment_id)).esim_profile is None
