"""`/ops` list_stuck_enrollments and retry_enrollment: role `support`, their field rules (one line, or
all_stuck Y narrowed by error_contains and stuck_minutes), and a retry of a line that is not stuck."""

from __future__ import annotations

import pytest

from tests.support.builders import body, create, line
from tests.support.lines import SUPPORT


def refused_with(envelope, *errors: str) -> None:
    code, msg = ("RESTAPI110", "Error occurred") if len(errors) == 1 else ("RESTAPI010", "Multiple errors")
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (code, msg, list(errors))


@pytest.mark.parametrize(
    "request_body",
    [body("list_stuck_enrollments"), body("retry_enrollment", enrollment_id="EUNKNOWN123")],
    ids=["list_stuck_enrollments", "retry_enrollment"],
)
async def test_ops_needs_the_support_role(shared_stack, request_body):
    refused = await shared_stack.call("/ops", request_body)
    assert (refused["msg_code"], refused["msg"], refused["errors"]) == (
        "RESTAPI109",
        "Unauthorized Access",
        ["This operation needs the support role"],
    )


async def test_list_stuck_enrollments_as_support(shared_stack):
    listed = await shared_stack.call("/ops", body("list_stuck_enrollments", **SUPPORT))
    assert (listed["msg_code"], listed["data"]) == ("RESTAPI000", [])


@pytest.mark.parametrize(
    ("good", "bad", "error"),
    [
        (1, 0, "Limit must be at least 1"),
        (500, 501, "Limit must be at most 500"),
        ("25", "ten", "Limit must be a whole number"),
        (100, 2.5, "Limit must be a whole number"),
    ],
)
async def test_list_stuck_enrollments_limit_is_1_to_500(shared_stack, good, bad, error):
    assert (await shared_stack.call("/ops", body("list_stuck_enrollments", limit=good, **SUPPORT)))[
        "msg_code"
    ] == "RESTAPI000"
    refused_with(await shared_stack.call("/ops", body("list_stuck_enrollments", limit=bad, **SUPPORT)), error)


@pytest.mark.parametrize(
    ("bad", "error"),
    [("E-1", "Enrollment Id must be letters and digits only"), ("", "Please enter Enrollment Id")],
)
async def test_retry_enrollment_enrollment_id_rule(shared_stack, bad, error):
    refused_with(await shared_stack.call("/ops", body("retry_enrollment", enrollment_id=bad, **SUPPORT)), error)


async def test_retry_enrollment_unknown_line(shared_stack):
    refused = await shared_stack.call("/ops", body("retry_enrollment", enrollment_id="EUNKNOWN123", **SUPPORT))
    refused_with(refused, "No customer found against this enrolment ID")


async def test_retry_enrollment_of_a_line_that_is_not_stuck(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    created = await shared_stack.call(
        "/customer", create(enrollment_id, line(enrollment_id, activation_later="Y", password=None))
    )
    assert created["msg_code"] == "RESTAPI000", created
    refused = await shared_stack.call("/ops", body("retry_enrollment", enrollment_id=enrollment_id, **SUPPORT))
    refused_with(refused, f"Enrollment {enrollment_id} is not stuck (status WAITING_ACTIVATION)")


def retry(**fields):
    return body("retry_enrollment", **SUPPORT, **fields)


@pytest.mark.parametrize(
    ("field", "good", "bad", "errors"),
    [
        ("all_stuck", "Y", "YES", ["All stuck must be Y or N", "Please enter Enrollment Id"]),
        ("error_contains", "SIM already", "x" * 101, ["Error contains must be at most 100 characters"]),
        ("stuck_minutes", 30, 0, ["Stuck minutes must be at least 1"]),
        ("stuck_minutes", "525600", 525_601, ["Stuck minutes must be at most 525600"]),
        ("stuck_minutes", 1, 2.5, ["Stuck minutes must be a whole number"]),
    ],
)
async def test_retry_enrollment_bulk_field_rule(shared_stack, field, good, bad, errors):
    bulk = {} if field == "all_stuck" else {"all_stuck": "Y"}
    answered = await shared_stack.call("/ops", retry(**bulk, **{field: good}))
    assert (answered["msg_code"], answered["data"]) == ("RESTAPI000", {"retried": [], "remaining": 0})
    refused_with(await shared_stack.call("/ops", retry(**bulk, **{field: bad})), *errors)


NARROW = "error_contains and stuck_minutes narrow a retry with all_stuck Y"


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"enrollment_id": "EUNKNOWN123", "all_stuck": "Y"}, "Send either enrollment_id or all_stuck Y, not both"),
        ({"all_stuck": "N"}, "Please enter Enrollment Id"),
        ({"enrollment_id": "EUNKNOWN123", "stuck_minutes": 5}, NARROW),
        ({"enrollment_id": "EUNKNOWN123", "all_stuck": "N", "error_contains": "SIM"}, NARROW),
    ],
)
async def test_retry_enrollment_names_one_line_or_all_stuck(shared_stack, fields, error):
    refused_with(await shared_stack.call("/ops", retry(**fields)), error)
