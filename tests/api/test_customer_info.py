"""`/customer` customer_info: a customer of the calling vendor and its account's lines, by enrollment id or
customer id; another vendor's customer answers as an unknown one."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import body, create, line

UNKNOWN = "No customer found against this customer ID or enrollment ID"


@pytest.fixture(scope="module")
async def account(shared_stack) -> dict[str, Any]:
    """An account of two lines: the holder active, the second waiting for activation."""
    holder, second = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    request = create(holder, line(holder), line(second, activation_later="Y", password=None, first_name="Sam"))
    created = await shared_stack.call("/customer", request)
    assert created["msg_code"] == "RESTAPI000", created
    entries = {entry["data"]["enrollment_id"]: entry["data"] for entry in created["data"]}
    return entries | {"holder": holder, "second": second}


async def test_customer_info_by_enrollment_id_lists_the_accounts_lines(shared_stack, account):
    info = await shared_stack.call("/customer", body("customer_info", enrollment_id=account["second"]))
    assert info["msg_code"] == "RESTAPI000", info
    data = info["data"]
    assert (data["enrollment_id"], data["first_name"], data["last_name"]) == (account["second"], "Sam", "O'Neil")
    assert (data["service_city"], data["service_state"], data["service_zip"]) == ("Atlanta", "GA", "30301")
    assert {held["enrollment_id"]: held["status"] for held in data["lines"]} == {
        account["holder"]: "ACTIVE", account["second"]: "WAITING_ACTIVATION",
    }  # fmt: skip
    assert data["lines"][0]["mdn"] == account[account["holder"]]["mdn"]


async def test_customer_info_by_customer_id(shared_stack, account):
    customer_id = account[account["holder"]]["customer_id"]
    info = await shared_stack.call("/customer", body("customer_info", customer_id=customer_id))
    assert (info["data"]["customer_id"], info["data"]["enrollment_id"]) == (customer_id, account["holder"])


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({}, "Please enter either Customer ID or Enrollment ID"),
        ({"customer_id": "12ab"}, "Customer Id must be numeric"),
        ({"enrollment_id": "E-1"}, "Enrollment Id must be letters and digits only"),
        ({"enrollment_id": "ENOSUCHLINE"}, UNKNOWN),
    ],
)
async def test_customer_info_refusals(shared_stack, fields, error):
    refused = await shared_stack.call("/customer", body("customer_info", **fields))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", [error])


async def test_another_vendors_customer_is_unknown(shared_stack, account):
    request = body("customer_info", enrollment_id=account["holder"], agent_id="other.agent")
    assert (await shared_stack.call("/customer", request, vendor="OTHER"))["errors"] == [UNKNOWN]
    by_id = body("customer_info", customer_id=account[account["holder"]]["customer_id"], agent_id="other.agent")
    assert (await shared_stack.call("/customer", by_id, vendor="OTHER"))["errors"] == [UNKNOWN]
