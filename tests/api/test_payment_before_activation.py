"""Payment before activation (issue 19, finding 6; decisions.md "External payment references"): recording money
no gateway saw needs the payments role; an invoice given at creation is a settled invoice of the order; a vendor
set to require payment (`lineup vendor set --require-payment`) activates a line only once a settled payment
covers its plan."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.accounts import SUPPORT_API_PASSWORD
from cli.main import app as cli
from tests.support.builders import body, create, line

NO_CARD = {
    "card_number": None, "exp_month": None, "exp_year": None, "cvv": None, "name_on_card": None,
    "address1": None, "city": None, "state": None, "zip": None, "save_card": None,
}  # fmt: skip
NEEDS_ROLE = "Recording a CASH or OTHER_PAYMENT_OPTION payment needs the payments role"


def recorded(enrollment_id: str, method: str, agent: str, **overrides: Any) -> dict[str, Any]:
    reference = {"payment_method_option": "STRIPE", "transaction_id": f"ch_{secrets.token_hex(8)}"}
    return body(
        "make_payment",
        enrollment_id=enrollment_id,
        payment_method=method,
        agent_id=agent,
        **{**NO_CARD, **(reference if method == "OTHER_PAYMENT_OPTION" else {}), **overrides},
    )


def later(enrollment_id: str) -> dict[str, Any]:
    return line(enrollment_id, activation_later="Y", password=None)


@pytest.mark.parametrize("method", ["CASH", "OTHER_PAYMENT_OPTION"])
async def test_recording_a_payment_needs_the_payments_role(shared_stack, method):
    enrollment_id = await shared_stack.new_enrollment_id()
    support = recorded(enrollment_id, method, "demo.support", agent_password=SUPPORT_API_PASSWORD)  # no payments
    refused = await shared_stack.call("/payment", support)
    assert (refused["msg_code"], refused["msg"], refused["errors"]) == (
        "RESTAPI109",
        "Unauthorized Access",
        [NEEDS_ROLE],
    )
    paid = await shared_stack.call("/payment", recorded(enrollment_id, method, "demo.agent"))  # agent, payments
    assert paid["msg_code"] == "RESTAPI000", paid


async def test_an_agent_may_still_charge_a_card(shared_stack):
    paid = await shared_stack.call(
        "/payment", body("make_payment", enrollment_id=await shared_stack.new_enrollment_id())
    )
    assert paid["msg_code"] == "RESTAPI000", paid


async def test_an_invoice_given_at_creation_is_a_settled_invoice_of_the_order(shared_stack):
    parent, stranger = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    theirs = (
        await shared_stack.call(
            "/enrollment", body("check_service_availability", agent_id="other.agent"), vendor="OTHER"
        )
    )["data"]["enrollment_id"]
    other_vendor = await shared_stack.call(
        "/payment", body("make_payment", enrollment_id=theirs, agent_id="other.agent"), vendor="OTHER"
    )
    unrelated = await shared_stack.call("/payment", body("make_payment", enrollment_id=stranger))
    for invoice in ("INVFAKE0001", other_vendor["data"]["invoice_number"], unrelated["data"]["invoice_number"]):
        refused = await shared_stack.call("/customer", create(parent, later(parent), invoice_number=invoice))
        assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", ["Invalid invoice number"]), invoice
    paid = await shared_stack.call("/payment", body("make_payment", enrollment_id=parent))
    invoice = paid["data"]["invoice_number"]
    created = await shared_stack.call("/customer", create(parent, later(parent), invoice_number=invoice))
    assert created["msg_code"] == "RESTAPI000", created
    assert created["data"][0]["data"]["invoice_number"] == invoice


async def test_a_line_may_name_its_own_invoice(shared_stack):
    parent, added = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    paid = await shared_stack.call("/payment", body("make_payment", enrollment_id=added))
    request = create(parent, later(parent), later(added), invoice_number=paid["data"]["invoice_number"])
    assert (await shared_stack.call("/customer", request))["msg_code"] == "RESTAPI000"


def lineup(monkeypatch: pytest.MonkeyPatch, url: str, data_dir: Any, *args: str) -> Any:
    monkeypatch.setenv("LINEUP_DATABASE_URL", url)
    monkeypatch.setenv("LINEUP_DATA_DIR", str(data_dir))
    from models.settings import get_settings

    get_settings.cache_clear()
    try:
        return CliRunner().invoke(cli, list(args))
    finally:
        get_settings.cache_clear()


async def set_vendor(monkeypatch, sqlite_url, data_dir, flag: str) -> None:
    result = await asyncio.to_thread(
        lineup, monkeypatch, sqlite_url, data_dir, "vendor", "set", "--vendor-id", "DEMO", flag
    )
    assert result.exit_code == 0, result.output


def unpaid(number: int, plan: int) -> str:
    return f"Line {number}: No settled payment covers plan {plan} of this line; make_payment first"


async def test_a_vendor_that_requires_payment_activates_only_paid_plans(stack, sqlite_url, data_dir, monkeypatch):
    await set_vendor(monkeypatch, sqlite_url, data_dir, "--require-payment")
    parent = await stack.new_enrollment_id()
    refused = await stack.call("/customer", create(parent, line(parent)))
    assert refused["errors"] == [unpaid(1, 102)]
    await stack.call("/payment", body("make_payment", enrollment_id=parent, plan_id="101"))  # another plan
    assert (await stack.call("/customer", create(parent, line(parent))))["errors"] == [unpaid(1, 102)]
    await stack.call("/payment", body("make_payment", enrollment_id=parent, plan_id=[102]))
    created = await stack.call("/customer", create(parent, line(parent)))
    assert created["msg_code"] == "RESTAPI000", created
    # The payment is spent on that line: a second line on the plan needs its own.
    added = await stack.new_enrollment_id()
    assert (await stack.call("/customer", create(parent, line(added))))["errors"] == [unpaid(1, 102)]


async def test_a_line_activated_later_needs_its_payment_then(stack, sqlite_url, data_dir, monkeypatch):
    await set_vendor(monkeypatch, sqlite_url, data_dir, "--require-payment")
    parent = await stack.new_enrollment_id()
    assert (await stack.call("/customer", create(parent, later(parent))))["msg_code"] == "RESTAPI000"
    activate = body("activate_line", enrollment_id=parent)
    refused = await stack.call("/customer", activate)
    assert refused["errors"] == ["No settled payment covers plan 102 of this line; make_payment first"]
    await stack.call("/payment", recorded(parent, "CASH", "demo.agent"))
    activated = await stack.call("/customer", activate)
    assert activated["msg_code"] == "RESTAPI000", activated


async def test_without_the_setting_no_payment_is_needed(stack, sqlite_url, data_dir, monkeypatch):
    await set_vendor(monkeypatch, sqlite_url, data_dir, "--require-payment")
    await set_vendor(monkeypatch, sqlite_url, data_dir, "--no-require-payment")
    parent = await stack.new_enrollment_id()
    assert (await stack.call("/customer", create(parent, line(parent))))["msg_code"] == "RESTAPI000"


async def test_the_setting_names_a_vendor_that_exists(sqlite_url, data_dir, monkeypatch):
    result = await asyncio.to_thread(
        lineup, monkeypatch, sqlite_url, data_dir, "vendor", "set", "--vendor-id", "NOPE", "--require-payment"
    )
    assert (result.exit_code, result.output.strip()) == (1, "error: vendor NOPE does not exist")
