"""A create's decision, in plain code and without a database (api.enrollment.refusals): given what intake read,
every reason to refuse the request, for all its lines at once, each rule with a case it accepts and one it
refuses. The read and the write around it are tested over HTTP (tests/api/test_enrollment_fields.py, …)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from api.enrollment import INVALID_INVOICE, Intake, refusals, uncovered, unpaid
from models.enrollment.actions import CreateMultiline
from models.enrollment.lines import Enrollment, Line
from models.envelope import PORT_IN_PROGRESS, invalid_enrollment_id
from tests.support.builders import PORT_FIELDS, create, line

VENDOR, ORDER = 7, "enrollment-E1-1l-abc"
ALIASES = {"BLUECONNECTSATT": "ATT"}


def request(*lines: dict[str, Any], parent: str = "E1", **overrides: Any) -> CreateMultiline:
    return CreateMultiline.model_validate(create(parent, *lines, **overrides))


def slot(enrollment_id: str, *, vendor_id: int = VENDOR, claimed_by: str | None = None) -> Enrollment:
    return Enrollment(
        enrollment_id=enrollment_id, vendor_id=vendor_id, zip_code="30301", state="GA", claimed_by=claimed_by
    )


def account_holder(
    enrollment_id: str = "E0", *, vendor_id: int = VENDOR, customer_id: str | None = "100000001"
) -> Line:
    return Line(
        enrollment_id=enrollment_id,
        parent_enrollment_id=enrollment_id,
        order_id="enrollment-E0-1l-abc",
        vendor_id=vendor_id,
        plan_id=102,
        activation_type="NEWACTIVATION",
        enrollment_type="SHIPMENT",
        email_hash="",
        pii="",
        customer_id=customer_id,
    )


def read(*ids: str, **facts: Any) -> Intake:
    """What intake reads for a request of these enrollment ids: each issued to the vendor, plan 102 active."""
    return Intake(slots={eid: slot(eid) for eid in ids}, stored={}, holder=None, plans=frozenset({101, 102}), **facts)


def decided(body: CreateMultiline, intake: Intake) -> list[str]:
    return refusals(body, intake, vendor_id=VENDOR, order_id=ORDER, aliases=ALIASES)


def test_create_a_request_every_rule_accepts_is_refused_for_nothing() -> None:
    assert decided(request(line("E1"), line("E2")), read("E1", "E2")) == []


def test_create_an_enrollment_id_twice_is_refused() -> None:
    assert decided(request(line("E1"), line("E1")), read("E1")) == ["Enrollment id E1 appears more than once"]


def test_create_a_carrier_is_an_abbreviation_or_a_configured_alias() -> None:
    assert decided(request(line("E1", carrier="BLUECONNECTSATT")), read("E1")) == []
    assert decided(request(line("E1", carrier="NOPE")), read("E1")) == [
        "Line 1: Carrier must be a carrier abbreviation: ATT, TMB, VER, SPR, TMBRLY, USC, BLUECONNECTSATT"
    ]


@pytest.mark.parametrize(
    "issued",
    [
        pytest.param({}, id="never issued"),
        pytest.param({"E1": slot("E1", vendor_id=8)}, id="issued to another vendor"),
    ],
)
def test_create_an_enrollment_id_must_be_issued_to_the_vendor(issued: dict[str, Enrollment]) -> None:
    found = decided(request(line("E1")), replace(read("E1"), slots=issued))
    assert found == [invalid_enrollment_id("E1")]


def test_create_an_enrollment_id_another_request_claimed_is_already_used() -> None:
    ours = replace(read("E1"), slots={"E1": slot("E1", claimed_by=ORDER)})
    assert decided(request(line("E1")), ours) == []  # a repeated request claimed it
    theirs = replace(read("E1"), slots={"E1": slot("E1", claimed_by="enrollment-E1-1l-other")})
    assert decided(request(line("E1")), theirs) == ["Enrollment id E1 is already used by another request"]


def test_create_a_parent_is_an_existing_account_of_the_vendor_or_a_line_of_the_request() -> None:
    body = request(line("E1"), parent="E0")
    assert decided(body, replace(read("E1"), holder=account_holder())) == []
    refused = "Parent enrollment id E0 is neither an existing account nor a line of this request"
    assert decided(body, read("E1")) == [refused]
    assert decided(body, replace(read("E1"), holder=account_holder(vendor_id=8))) == [refused]
    assert decided(body, replace(read("E1"), holder=account_holder(customer_id=None))) == [refused]


def test_create_a_number_another_line_is_porting_is_not_ported_twice() -> None:
    porting = line("E1", **{**PORT_FIELDS, "port_number": "4045550100"})
    assert decided(request(porting), read("E1")) == []
    busy = replace(read("E1"), porting=frozenset({"4045550100"}))
    assert decided(request(porting), busy) == [f"Line 1: {PORT_IN_PROGRESS}"]


def test_create_a_number_is_ported_once_per_request() -> None:
    first = line("E1", **{**PORT_FIELDS, "port_number": "4045550100"})
    second = line("E2", **{**PORT_FIELDS, "port_number": "4045550100"})
    assert decided(request(first, second), read("E1", "E2")) == ["Port number 4045550100 appears more than once"]


def test_create_a_plan_must_be_an_active_plan_of_the_plan_list() -> None:
    assert decided(request(line("E1", plan_id="101")), read("E1")) == []
    assert decided(request(line("E1", plan_id="999")), read("E1")) == ["Plan id 999 is not a plan of the plan list"]


def test_create_an_invoice_must_be_a_settled_payment_of_the_account() -> None:
    body = request(line("E1"), invoice_number="INV1")
    assert decided(body, read("E1")) == []
    assert decided(body, replace(read("E1"), invoice_settled=False)) == [INVALID_INVOICE]


def test_create_a_vendor_that_requires_payment_activates_only_lines_paid_for() -> None:
    body = request(line("E1"), line("E2", activation_later="Y"))
    paying = replace(read("E1", "E2"), paying=True)
    assert decided(body, paying) == [f"Line 1: {unpaid(102)}"]  # E2 activates later: nothing to pay yet
    assert decided(body, replace(paying, paid=(102,))) == []


def test_create_a_payment_already_spent_on_an_active_line_covers_no_second_one() -> None:
    paying = replace(read("E2"), paying=True, holder=account_holder(), paid=(102,))
    spent = replace(paying, account=(("E0", 102, "ACTIVE"),))
    assert decided(request(line("E2"), parent="E0"), spent) == [f"Line 1: {unpaid(102)}"]
    waiting = replace(paying, account=(("E0", 102, "WAITING_ACTIVATION"),))  # holds no paid plan yet
    assert decided(request(line("E2"), parent="E0"), waiting) == []


def test_create_every_reason_is_given_at_once_in_the_rules_order() -> None:
    body = request(line("E1", plan_id="999", carrier="NOPE"), line("E1"), invoice_number="INV1")
    found = decided(body, replace(read(), invoice_settled=False))
    assert found == [
        "Enrollment id E1 appears more than once",
        "Line 1: Carrier must be a carrier abbreviation: ATT, TMB, VER, SPR, TMBRLY, USC, BLUECONNECTSATT",
        invalid_enrollment_id("E1"),
        "Plan id 999 is not a plan of the plan list",
        INVALID_INVOICE,
    ]


def test_uncovered_counts_a_plan_listed_twice_as_two_lines() -> None:
    assert uncovered([], [102], {"E1": 102, "E2": 102}) == {102}
    assert uncovered([], [102, 102], {"E1": 102, "E2": 102}) == set()
