"""eSIM lines as the original answers them (decisions.md, "eSIM"): `ACTIVATION_CODE` and `QR_ACTIVATION_CODE`
are the profile's LPA text, and `QR_CODE_IMAGE` is a QR code a phone's camera reads as that text, in every
answer that carries the profile (creation and activate_line)."""

from __future__ import annotations

import re
from typing import Any

from tests.support.builders import body, create, line
from tests.support.images import data_uri, png
from tests.support.qr import qr_text

# sandbox.md: the carrier's SM-DP+ address and a matching id of its own
LPA = re.compile(r"LPA:1\$smdp\.sandbox-carrier\.example\$[A-Z0-9-]+")


def assert_profile(esim: dict[str, Any]) -> None:
    """Both code fields are the LPA text, and the image decodes to it."""
    assert set(esim) == {"ICCID", "ACTIVATION_CODE", "QR_ACTIVATION_CODE", "QR_CODE_IMAGE"}
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
