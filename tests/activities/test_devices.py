"""DeviceActivities with ActivityEnvironment against the sandbox's carrier, by the IMEI's 14th digit: a verdict,
a refused (blacklisted) device returned with its data, and the carrier down retried."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.devices import DeviceActivities
from models.devices import DeviceQuery
from tests.support.builders import imei


@pytest.fixture
def activities(carrier) -> DeviceActivities:
    return DeviceActivities(carrier)


@pytest.mark.parametrize(
    ("digit", "compatibility", "volte"),
    [("0", "COMPATIBLE", "YES"), ("4", "COMPATIBLE", "NO"), ("6", "NOT COMPATIBLE", "NO")],
)
async def test_device_compatibility_is_the_carriers_verdict(activities, digit, compatibility, volte):
    device = imei(digit)
    reply = await ActivityEnvironment().run(activities.device_compatibility, DeviceQuery(device, "TMB"))
    assert (reply.status_code, reply.imei, reply.compatibility) == ("00", device, compatibility)
    assert reply.volte_compatible == volte


async def test_a_blacklisted_device_comes_back_with_its_data(activities):
    device = imei("8")
    reply = await ActivityEnvironment().run(activities.device_compatibility, DeviceQuery(device, "TMB"))
    assert (reply.status_code, reply.description, reply.imei) == ("902", "Device is blacklisted", device)
    assert reply.status is not None and reply.status.blacklisted


async def test_the_carrier_down_is_retried(activities):
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(activities.device_compatibility, DeviceQuery(imei("9"), "TMB"))
    assert (failure.value.type, failure.value.non_retryable) == ("Unavailable", False)
