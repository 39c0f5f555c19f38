"""Channels written for the original service work unchanged (decisions.md, "Working with the original
service's channels"): each accepted form with a good and a bad value."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from models.enrollment.lines import Line
from models.payment import PaymentRecord
from tests.support.builders import PORT_FIELDS, body, create, line

ALIASES = "BLUECONNECTSATT:ATT,NEXUS:TMB"


def v2(*lines: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """create_prepaid_postpaid_customer_v2 as public clients send it: the parent inside each line, no
    top-level parent, no activation_type."""
    request = body("create_prepaid_postpaid_customer_v2", lines=list(lines), **overrides)
    request.pop("parent_enrollment_id", None)
    return request


def original_line(enrollment_id: str, parent: str | None = None, **overrides: Any) -> dict[str, Any]:
    found = line(enrollment_id, activation_type=None, parent_enrollment_id=parent or "", **overrides)
    return {key: value for key, value in found.items() if value is not None or key == "action"}


def without_id(found: dict[str, Any], value: str | None) -> dict[str, Any]:
    """The line with its enrollment_id left out (None) or sent blank."""
    rest = {key: item for key, item in found.items() if key != "enrollment_id"}
    return rest if value is None else rest | {"enrollment_id": value}


async def stored(api: Any, enrollment_id: str) -> Line:
    async with api.db.transaction() as session:
        found: Line = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
        return found


async def test_v2_names_the_parent_inside_the_lines_and_defaults_to_a_new_activation(shared_stack):
    holder, added = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    request = v2(original_line(holder), original_line(added, parent=holder))
    created = await shared_stack.call("/customer", request)
    assert created["msg_code"] == "RESTAPI000", created
    assert [entry["data"]["mdn"] is not None for entry in created["data"]] == [True, True]
    assert {(await stored(shared_stack, eid)).parent_enrollment_id for eid in (holder, added)} == {holder}
    assert (await stored(shared_stack, added)).activation_type == "NEWACTIVATION"


async def test_v2_is_portin_y_makes_a_portin_line(shared_stack):
    holder = await shared_stack.new_enrollment_id()
    port = {key: value for key, value in PORT_FIELDS.items() if key != "activation_type"}
    created = await shared_stack.call("/customer", v2(original_line(holder, is_portin="Y", **port)))
    assert created["data"][0]["msg"] == "Customer created; port-in submitted and pending", created
    assert (await stored(shared_stack, holder)).activation_type == "PORTIN"


async def test_v2_lines_naming_two_holders_name_none(shared_stack):
    first, second = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/customer", v2(original_line(first), original_line(second)))
    assert refused["errors"] == ["Please enter Parent Enrollment Id"]


@pytest.mark.parametrize("missing", [None, "", "  "])
async def test_v2_a_line_without_its_own_id_is_refused_for_that_only(shared_stack, missing):
    holder, added = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    unnamed = without_id(original_line(added, parent=holder), missing)
    refused = await shared_stack.call("/customer", v2(original_line(holder), unnamed))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", ["Line 2: Please enter Enrollment Id"])
    # The holder itself without its id: still only the missing id.
    alone = await shared_stack.call("/customer", v2(without_id(original_line(holder), missing)))
    assert alone["errors"] == ["Line 1: Please enter Enrollment Id"]
    # Once the id is there, the same lines are accepted.
    created = await shared_stack.call("/customer", v2(original_line(holder), original_line(added, parent=holder)))
    assert created["msg_code"] == "RESTAPI000", created


async def test_v2_a_line_without_its_id_among_two_holders_reports_both(shared_stack):
    first, second = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    lines = (original_line(first), original_line(second), without_id(original_line("X", parent=first), None))
    refused = await shared_stack.call("/customer", v2(*lines))
    assert refused["errors"] == ["Line 3: Please enter Enrollment Id", "Please enter Parent Enrollment Id"]


async def test_the_interface_action_keeps_its_rules(shared_stack):
    holder = await shared_stack.new_enrollment_id()
    request = body("create_customer_prepaid_multiline", lines=[original_line(holder)], parent_enrollment_id=None)
    refused = await shared_stack.call("/customer", request)
    assert refused["errors"] == ["Line 1: Please enter Activation type", "Please enter Parent Enrollment Id"]


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"carrier_aliases": ALIASES}


async def test_a_vendor_carrier_code_is_its_carrier(stack):
    holder = await stack.new_enrollment_id()
    created = await stack.call("/customer", v2(original_line(holder, carrier="BLUECONNECTSATT")))
    assert created["msg_code"] == "RESTAPI000", created
    assert (await stored(stack, holder)).carrier == "ATT"
    checked = await stack.call("/inventory", body("check_device_compatibility", carrier="NEXUS"))
    assert checked["msg_code"] == "RESTAPI000", checked


async def test_an_unknown_carrier_code_is_refused_with_the_codes_accepted(stack):
    holder = await stack.new_enrollment_id()
    refused = await stack.call("/customer", v2(original_line(holder, carrier="LINKUP")))
    accepted = "ATT, TMB, VER, SPR, TMBRLY, USC, BLUECONNECTSATT, NEXUS"
    assert refused["errors"] == [f"Line 1: Carrier must be a carrier abbreviation: {accepted}"]
    checked = await stack.call("/inventory", body("check_device_compatibility", carrier="LINKUP"))
    assert checked["errors"] == [f"Carrier must be a carrier abbreviation: {accepted}"]


ORIGINAL_CARD_NAMES = {
    "exp_month": "expiration_month", "exp_year": "expiration_year", "address1": "billing_address1",
    "city": "billing_city", "state": "billing_state", "zip": "billing_zip",
}  # fmt: skip


def original_payment(enrollment_id: str, **overrides: Any) -> dict[str, Any]:
    request = body("make_payment", enrollment_id=enrollment_id, card_type="VISA")
    for ours, theirs in ORIGINAL_CARD_NAMES.items():
        request[theirs] = request.pop(ours)
    return {**request, **overrides}


async def test_make_payment_takes_the_originals_names_and_answers_its_fields(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    paid = await shared_stack.call("/payment", original_payment(enrollment_id))
    assert paid["msg_code"] == "RESTAPI000", paid
    data = paid["data"]
    assert (data["payment_status"], data["settlement"], data["payment_method"]) == (
        "SUCCESS",
        "APPROVED",
        "CREDIT_CARD",
    )
    assert data["order_id"].isdigit() and data["transaction_no"] == data["transaction_id"]
    assert data["total_amount"] == f"{float(data['amount']) + float(data['plan_tax']):.2f}"


async def test_make_payment_with_a_bad_original_name_names_that_field(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/payment", original_payment(enrollment_id, expiration_month="13"))
    assert refused["errors"] == ["Expiration month must be a two-digit month, 01 to 12"]


@pytest.mark.parametrize("method", ["OTHER_PAYMENT_OPTION", "CASH"])
async def test_a_payment_made_elsewhere_is_recorded_and_never_reaches_the_gateway(stack, method):
    # The gateway is unreachable for this stack: a card call would answer "The payment gateway is unavailable".
    stack.app.state.resources.payments._base = "http://127.0.0.1:1"  # noqa: SLF001 our own client, made unreachable
    enrollment_id = await stack.new_enrollment_id()
    external = {"payment_method_option": "STRIPE", "transaction_id": "pi3MtwBwLkdIwHu7ix28a3tqPa"}
    request = body(
        "make_payment",
        enrollment_id=enrollment_id,
        payment_method=method,
        card_number=None,
        exp_month=None,
        exp_year=None,
        cvv=None,
        name_on_card=None,
        address1=None,
        city=None,
        state=None,
        zip=None,
        save_card=None,
        agent_id="demo.agent",  # the payments role
        **(external if method == "OTHER_PAYMENT_OPTION" else {}),
    )
    paid = await stack.call("/payment", request)
    assert paid["msg_code"] == "RESTAPI000", paid
    assert (paid["data"]["payment_status"], paid["data"]["settlement"]) == ("SUCCESS", "RECORDED")
    assert paid["data"]["payment_method"] == method
    async with stack.db.transaction() as session:
        payment = (await session.exec(select(PaymentRecord).where(PaymentRecord.enrollment_id == enrollment_id))).one()
    if method == "OTHER_PAYMENT_OPTION":
        assert (payment.transaction_id, payment.payment_method_option) == (external["transaction_id"], "STRIPE")
    else:
        assert payment.transaction_id.startswith("CASH")
    assert payment.card_id is None


async def test_an_external_payment_needs_its_reference(api):
    request = body("make_payment", payment_method="OTHER_PAYMENT_OPTION", enrollment_id="E1", card_number=None)
    refused = await api.call("/payment", request)
    assert refused["errors"] == [
        "Payment method option and Transaction Id are required for an OTHER_PAYMENT_OPTION payment"
    ]


async def test_repeated_slashes_collapse(api):
    credentials = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
    # A full URL: httpx would read a relative `//authenticate` as a host name.
    answer = (await api.post("http://lineup.test//authenticate", credentials)).json()
    assert answer["msg_code"] == "RESTAPI000"
    listed = await api.post("http://lineup.test///plan//", body("plan_list"), token=answer["token"])
    assert listed.json()["msg_code"] == "RESTAPI000"
    assert (await api.post("http://lineup.test//nowhere", body("plan_list"))).json()["msg_code"] == "RESTAPI105"


async def test_numbers_where_strings_are_documented(shared_stack):
    """plan_id, customer_id, carrier ids and OTPs arrive as JSON numbers from some channels."""
    enrollment_id = await shared_stack.new_enrollment_id()
    paid = await shared_stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, plan_id=102))
    assert paid["msg_code"] == "RESTAPI000", paid
    created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id, plan_id=102)))
    customer_id = int(created["data"][0]["data"]["customer_id"])
    info = await shared_stack.call("/customer", body("customer_info", customer_id=customer_id))
    assert info["data"][0]["enrollment_id"] == enrollment_id
    assert (await shared_stack.call("/plan", body("plan_list", plan_id=101)))["data"][0]["plan_id"] == "101"
