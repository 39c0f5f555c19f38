"""Support's retry decides in plain code what it resumes of the lines it read (api.support.decide): no database,
no workflow engine. The HTTP behaviour around it is tests/workflows/test_support_retry.py's and test_retry_once.py's."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from api.enrollment import NO_CUSTOMER
from api.support import ToResume, decide
from models.enrollment.lines import EnrollmentOrder, Line, LineStatus
from models.envelope import LineupError
from models.support import Waiting

ALL_WAITING = Waiting(received_before=datetime(2026, 11, 22, tzinfo=UTC))


def a_line(enrollment_id: str, status: LineStatus) -> Line:
    return Line(
        enrollment_id=enrollment_id,
        parent_enrollment_id=enrollment_id,
        order_id=f"enrollment-{enrollment_id}",
        vendor_id=1,
        plan_id=102,
        activation_type="NEWACTIVATION",
        enrollment_type="SHIPMENT",
        email_hash="0" * 64,
        pii="sealed",
        status=status,
    )


def an_order(enrollment_id: str) -> EnrollmentOrder:
    return EnrollmentOrder(f"enrollment-{enrollment_id}", enrollment_id, [], "DEMO")


def refusal(target: str, found: ToResume) -> tuple[list[str] | None, int | None]:
    with pytest.raises(LineupError) as refused:
        decide(target, found)
    return refused.value.errors, refused.value.rest_status


def test_retry_enrollment_of_a_stuck_line_claims_it_and_starts_nothing():
    line = a_line("E1", LineStatus.STUCK)
    plan = decide("E1", ToResume([line]))
    assert (plan.lines, plan.claimed, plan.orders, plan.remaining) == ([line], ["E1"], [], 0)


def test_retry_enrollment_of_a_line_that_never_started_starts_its_order_and_claims_nothing():
    line, order = a_line("E1", LineStatus.RECEIVED), an_order("E1")
    plan = decide("E1", ToResume([line], [order]))
    assert (plan.lines, plan.claimed, plan.orders) == ([line], [], [order])


def test_retry_enrollment_of_no_line_of_the_vendor_is_refused_as_not_found():
    assert refusal("E1", ToResume([])) == ([NO_CUSTOMER], 404)


def test_retry_enrollment_of_a_line_being_retried_is_refused():
    assert refusal("E1", ToResume([a_line("E1", LineStatus.RETRYING)])) == (
        ["Enrollment E1 is already being retried"],
        409,
    )


@pytest.mark.parametrize("status", [LineStatus.ACTIVE, LineStatus.ACTIVATING, LineStatus.WAITING_ACTIVATION])
def test_retry_enrollment_of_a_line_not_waiting_for_support_is_refused_with_its_status(status):
    assert refusal("E1", ToResume([a_line("E1", status)])) == ([f"Enrollment E1 is not stuck (status {status})"], 409)


def test_retry_enrollment_all_stuck_claims_the_stuck_lines_starts_the_orders_and_counts_the_rest():
    stuck, received, order = a_line("E1", LineStatus.STUCK), a_line("E2", LineStatus.RECEIVED), an_order("E2")
    plan = decide(ALL_WAITING, ToResume([stuck, received], [order], remaining=5))
    assert (plan.lines, plan.claimed, plan.orders, plan.remaining) == ([stuck, received], ["E1"], [order], 5)


def test_retry_enrollment_all_stuck_with_nothing_waiting_resumes_nothing():
    plan = decide(ALL_WAITING, ToResume([]))
    assert (plan.lines, plan.claimed, plan.orders, plan.remaining) == ([], [], [], 0)
