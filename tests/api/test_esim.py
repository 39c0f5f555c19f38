"""eSIM lines as the original answers them (decisions.md, "eSIM"): `ACTIVATION_CODE` and `QR_ACTIVATION_CODE`
are the profile's LPA text, and `QR_CODE_IMAGE` is a QR code a phone's camera reads as that text, in every
answer that carries the profile (creation and activate_line)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.builders import body, create, line, new_iccid
from tests.support.images import data_uri, png
from tests.support.qr import qr_text

# sandbox.md: the carrier's SM-DP+ address and a matching id of its own
LPA = re.compile(r"LPA:1\$smdp\.sandbox-carrier\.example\$[A-Z0-9-]+")


def assert_profile(esim: dict[str, Any]) -> None:
    """Both code fields are the LPA text, and the image decodes to it; the allocation's status and the SM-DP+
    address of that text, which the original's Flutter app saves (issue 34)."""
    assert set(esim) == {
        "ICCID", "ACTIVATION_CODE", "QR_ACTIVATION_CODE", "QR_CODE_IMAGE", "SMDPADDRESS", "STATUSCODE", "DESCRIPTION",
        "ESIM_ALLOCATION_SUCCESS",
    }  # fmt: skip
    assert (esim["STATUSCODE"], esim["ESIM_ALLOCATION_SUCCESS"]) == ("00", "Y") and esim["DESCRIPTION"]
    assert esim["SMDPADDRESS"] == "smdp.sandbox-carrier.example"  # the LPA text's, as sandbox.md gives it
    assert LPA.fullmatch(esim["QR_ACTIVATION_CODE"]), esim["QR_ACTIVATION_CODE"]
    assert esim["ACTIVATION_CODE"] == esim["QR_ACTIVATION_CODE"]
    assert qr_text(esim["QR_CODE_IMAGE"]) == esim["QR_ACTIVATION_CODE"]


async def test_an_esim_lines_qr_activation_code_is_the_lpa_text_and_its_image_reads_as_it(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id, is_esim="Y")))
    assert created["msg_code"] == "RESTAPI000", created
    assert_profile(created["data"][0]["data"]["esim"])
    # The repeated request answers the same profile.
    again = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id, is_esim="Y")))
    assert again["data"][0]["data"]["esim"] == created["data"][0]["data"]["esim"]


async def test_an_esim_line_activated_later_answers_its_profile_in_activate_line(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    waiting = line(enrollment_id, is_esim="Y", activation_later="Y", password=None)
    created = await shared_stack.call("/customer", create(enrollment_id, waiting))
    assert "esim" not in created["data"][0]["data"]  # no profile before the carrier activates the line
    activated = await shared_stack.call("/customer", body("activate_line", enrollment_id=enrollment_id))
    assert activated["msg_code"] == "RESTAPI000", activated
    assert_profile(activated["data"][0]["data"]["esim"])


async def test_a_physical_sim_line_has_no_esim_profile(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id, is_esim="N")))
    assert created["msg_code"] == "RESTAPI000", created
    assert "esim" not in created["data"][0]["data"]


def test_the_qr_reader_tells_an_image_without_a_code():
    """The decoder really reads: an image that is no QR code reads as nothing."""
    assert qr_text(data_uri(png())) is None


# assign_esim (issue 26; decisions.md `/customer` assign_esim): the line's profile, or one assigned now.
async def test_assign_esim_gives_a_line_without_a_sim_its_profile_which_its_activation_uses(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    waiting = line(enrollment_id, activation_later="Y", password=None)  # shipped later: no SIM yet
    assert (await shared_stack.call("/customer", create(enrollment_id, waiting)))["msg_code"] == "RESTAPI000"
    assigned = await shared_stack.call("/customer", body("assign_esim", enrollment_id=enrollment_id))
    assert assigned["msg_code"] == "RESTAPI000", assigned
    assert_profile(assigned["data"])
    again = await shared_stack.call("/customer", body("assign_esim", enrollment_id=enrollment_id))
    assert again["data"] == assigned["data"]  # asked again, the same profile
    activated = await shared_stack.call("/customer", body("activate_line", enrollment_id=enrollment_id))
    assert activated["msg_code"] == "RESTAPI000", activated
    assert activated["data"][0]["data"]["esim"] == assigned["data"]  # the phone's profile is the line's
    inquiry = await shared_stack.call("/customer", body("line_inquiry", enrollment_id=enrollment_id))
    assert inquiry["data"]["LINE_INQ"]["SIM_NUMBER"] == assigned["data"]["ICCID"]
    # The profile's code is sealed in the line, never in the assignment's workflow history.
    handle = shared_stack.env.client.get_workflow_handle(f"esim-{enrollment_id}")
    history = (await handle.fetch_history()).to_json()
    assert assigned["data"]["ACTIVATION_CODE"] not in history and "LPA:" not in history


async def test_assign_esim_of_an_esim_line_answers_the_profile_of_its_creation(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id, is_esim="Y")))
    assigned = await shared_stack.call("/customer", body("assign_esim", enrollment_id=enrollment_id))
    assert (assigned["msg_code"], assigned["data"]) == ("RESTAPI000", created["data"][0]["data"]["esim"])


async def test_assign_esim_refuses_a_physical_sim_and_another_vendors_line(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    physical = line(enrollment_id, activation_later="Y", phone_type="4G", uiccid=new_iccid(), password=None)
    assert (await shared_stack.call("/customer", create(enrollment_id, physical)))["msg_code"] == "RESTAPI000"
    refused = await shared_stack.call("/customer", body("assign_esim", enrollment_id=enrollment_id))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", ["Line has a physical SIM"])
    theirs = await shared_stack.call(
        "/customer", body("assign_esim", enrollment_id=enrollment_id, agent_id="other.agent"), vendor="OTHER"
    )
    assert (theirs["msg_code"], theirs["errors"]) == ("RESTAPI110", ["No customer found against this enrolment ID"])


@pytest.mark.parametrize(
    ("bad", "error"),
    [("E-1", "Enrollment Id must be letters and digits only"), ("", "Please enter Enrollment Id")],
)
async def test_assign_esim_enrollment_id_rule(shared_stack, bad, error):
    good = await shared_stack.call("/customer", body("assign_esim", enrollment_id="EUNKNOWN1"))
    assert good["errors"] == ["No customer found against this enrolment ID"]  # the rule passed
    refused = await shared_stack.call("/customer", body("assign_esim", enrollment_id=bad))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", [error])
