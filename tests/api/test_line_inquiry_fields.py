"""`/customer` line_inquiry: the enrollment id, the eight Y/N flags, a line that is not there."""

from __future__ import annotations

import pytest

from tests.support.builders import body, create, line

NOT_FOUND = "No customer found against this enrolment ID"
FLAGS = (
    ("line_inquiry", "Line inquiry"), ("balance_inquiry", "Balance inquiry"), ("zoom_balance", "Zoom balance"),
    ("peer_balance", "Peer balance"), ("telna_balance", "Telna balance"), ("query_sim_info", "Query SIM info"),
    ("data_saver_info", "Data saver info"), ("subscriber_status", "Subscriber status"),
)  # fmt: skip


def refused_with(envelope, *errors: str) -> None:
    code, msg = ("RESTAPI110", "Error occurred") if len(errors) == 1 else ("RESTAPI010", "Multiple errors")
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (code, msg, list(errors))


@pytest.fixture(scope="module")
async def held(shared_stack) -> str:
    """A line of this module's stack, attached for activation later (the carrier answers 909 for it)."""
    enrollment_id: str = await shared_stack.new_enrollment_id()
    created = await shared_stack.call(
        "/customer", create(enrollment_id, line(enrollment_id, activation_later="Y", password=None))
    )
    assert created["msg_code"] == "RESTAPI000", created
    return enrollment_id


@pytest.mark.parametrize(
    ("flag", "name", "good"), [(flag, name, "YN"[index % 2]) for index, (flag, name) in enumerate(FLAGS)]
)
async def test_line_inquiry_flag_is_y_or_n(shared_stack, held, flag, name, good):
    answered = await shared_stack.call("/customer", body("line_inquiry", enrollment_id=held, **{flag: good}))
    assert answered["msg_code"] == "RESTAPI000", answered
    refused_with(
        await shared_stack.call("/customer", body("line_inquiry", enrollment_id=held, **{flag: "yes"})),
        f"{name} must be Y or N",
    )


async def test_line_inquiry_blank_flags_as_the_sample_sends_them(shared_stack, held):
    flags = {flag: "" for flag, _ in FLAGS}
    answered = await shared_stack.call("/customer", body("line_inquiry", enrollment_id=held, **flags))
    assert answered["msg_code"] == "RESTAPI000" and answered["data"]["LINE_INQ"]["STATUSCODE"] == "909"


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        ("E-1", "Enrollment Id must be letters and digits only"),
        ("E" * 25, "Enrollment Id must be letters and digits only"),
        ("", "Please enter Enrollment Id"),
        (None, "Please enter Enrollment Id"),
    ],
)
async def test_line_inquiry_enrollment_id_is_alphanumeric(shared_stack, held, bad, error):
    assert (await shared_stack.call("/customer", body("line_inquiry", enrollment_id=held)))["msg_code"] == "RESTAPI000"
    refused = await shared_stack.call("/customer", {**body("line_inquiry"), "enrollment_id": bad})
    refused_with(refused, error)


async def test_line_inquiry_several_bad_fields(shared_stack):
    refused = await shared_stack.call("/customer", body("line_inquiry", enrollment_id="E-1", zoom_balance="1"))
    refused_with(refused, "Enrollment Id must be letters and digits only", "Zoom balance must be Y or N")


async def test_line_inquiry_unknown_line(shared_stack):
    refused_with(await shared_stack.call("/customer", body("line_inquiry", enrollment_id="EUNKNOWN123")), NOT_FOUND)


async def test_line_inquiry_issued_id_without_a_line(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    refused_with(await shared_stack.call("/customer", body("line_inquiry", enrollment_id=enrollment_id)), NOT_FOUND)


async def test_line_inquiry_another_vendors_line(shared_stack, held):
    refused = await shared_stack.call(
        "/customer", body("line_inquiry", enrollment_id=held, agent_id="other.agent"), vendor="OTHER"
    )
    refused_with(refused, NOT_FOUND)
