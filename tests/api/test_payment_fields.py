"""`/payment` make_payment: card rules (Luhn, expiry, CVV), the billing address, save_card, and the
enrollment id and plan it pays for."""

from __future__ import annotations

from datetime import date

import pytest

from tests.support.builders import body

ADDRESS_CHARACTERS = "may contain only letters, digits, spaces and / # -"


def refused_with(envelope, *errors: str) -> None:
    code, msg = ("RESTAPI110", "Error occurred") if len(errors) == 1 else ("RESTAPI010", "Multiple errors")
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (code, msg, list(errors))


def months_from_now(months: int) -> tuple[str, str]:
    """(exp_month, exp_year) of the month `months` away from this one."""
    index = date.today().year * 12 + date.today().month - 1 + months
    return f"{index % 12 + 1:02d}", str(index // 12)


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("enrollment_id", None, "E-1", "Enrollment Id must be letters and digits only"),
        ("enrollment_id", None, "", "Please enter Enrollment Id"),
        ("plan_id", "101", "x1", "Plan Id must be a plan id or a list of plan ids"),
        ("card_number", "4111 1111 1111 1111", "4111111111111112", "Card number must be a valid card number"),
        ("card_number", "5555-5555-5555-4444", "", "Please enter Card number"),
        ("exp_month", "01", "13", "Expiry month must be a two-digit month, 01 to 12"),
        ("exp_month", "09", "9", "Expiry month must be a two-digit month, 01 to 12"),
        ("exp_year", "2031", "31", "Expiry year must be a four-digit year"),
        ("cvv", "1234", "12", "CVV must be 3 or 4 digits"),
        ("cvv", "456", "12345", "CVV must be 3 or 4 digits"),
        (
            "name_on_card",
            "Pat Q. O'Neil",
            "Pat 0'Neil",
            "Name on card may contain only letters, spaces and . ' ` -",
        ),
        ("address1", "12/B Main St #4", "12 Main St.", f"Address line 1 {ADDRESS_CHARACTERS}"),
        ("address2", "Apt 4", "Apt (4)", f"Address line 2 {ADDRESS_CHARACTERS}"),
        ("city", "Winston-Salem", "St. Louis", "City may contain only letters, spaces and hyphens"),
        ("state", "ga", "ZZ", "State must be a US state or territory abbreviation"),
        ("zip", "10001", "1000", "Zip must be exactly 5 digits"),
        ("save_card", "N", "yes", "Save card must be Y or N"),
    ],
)
async def test_make_payment_field_rule(shared_stack, field, good, bad, error):
    enrollment_id = await shared_stack.new_enrollment_id()
    payment = body("make_payment", enrollment_id=enrollment_id)
    refused_with(await shared_stack.call("/payment", {**payment, field: bad}), error)
    if good is not None:
        paid = await shared_stack.call("/payment", {**payment, field: good})
        assert paid["msg_code"] == "RESTAPI000", paid


async def test_make_payment_expired_card(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    last_month, this_month = months_from_now(-1), months_from_now(0)
    expired = body("make_payment", enrollment_id=enrollment_id, exp_month=last_month[0], exp_year=last_month[1])
    refused_with(await shared_stack.call("/payment", expired), "Card has expired")
    current = body("make_payment", enrollment_id=enrollment_id, exp_month=this_month[0], exp_year=this_month[1])
    assert (await shared_stack.call("/payment", current))["msg_code"] == "RESTAPI000"


async def test_make_payment_reports_every_bad_field(shared_stack):
    refused_with(
        await shared_stack.call("/payment", body("make_payment", card_number="1234", cvv="1", zip=None)),
        "Card number must be a valid card number",
        "CVV must be 3 or 4 digits",
        "Please enter Zip",
    )


async def test_make_payment_unknown_enrollment_id(shared_stack):
    refused = await shared_stack.call("/payment", body("make_payment", enrollment_id="EUNKNOWN123"))
    refused_with(refused, "Invalid enrollment id EUNKNOWN123. Please provide a valid enrollment ID.")


async def test_make_payment_another_vendors_enrollment_id(shared_stack):
    issued = await shared_stack.call(
        "/enrollment", body("check_service_availability", agent_id="other.agent"), vendor="OTHER"
    )
    theirs = issued["data"]["enrollment_id"]
    refused = await shared_stack.call("/payment", body("make_payment", enrollment_id=theirs))
    refused_with(refused, f"Invalid enrollment id {theirs}. Please provide a valid enrollment ID.")


async def test_make_payment_unknown_plan(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, plan_id="999"))
    refused_with(refused, "Plans not found")
