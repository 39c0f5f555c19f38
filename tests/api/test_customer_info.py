"""`/customer` customer_info (decisions.md, "Working with the original service's channels"): the calling vendor's
customers by enrollment id, customer id or e-mail, answered as an array with one element per line of the
matching accounts; another vendor's customer answers as an unknown one. Every customer has its account PIN."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.builders import body, create, line

UNKNOWN = "No Record Found"
ELEMENT = {
    "customer_id", "enrollment_id", "parent_enrollment_id", "first_name", "last_name", "email",
    "service_address_one", "service_city", "service_state", "service_zip", "zip_code", "mdn", "esn_number",
    "status", "plan_id", "plan_description", "activation_type", "carrier", "is_esim", "pin",
}  # fmt: skip


@pytest.fixture(scope="module")
async def account(shared_stack) -> dict[str, Any]:
    """An account of two lines: the holder active with its own PIN, the second waiting for activation (generated
    PIN), under one e-mail that is also the holder's of a second account."""
    holder, second = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    email = f"family.{holder.lower()}@example.com"
    request = create(
        holder,
        line(holder, email=email.upper(), pin="0427"),
        line(second, activation_later="Y", password=None, first_name="Sam", email=email),
    )
    created = await shared_stack.call("/customer", request)
    assert created["msg_code"] == "RESTAPI000", created
    entries = {entry["data"]["enrollment_id"]: entry["data"] for entry in created["data"]}
    other = await shared_stack.new_enrollment_id()
    again = await shared_stack.call("/customer", create(other, line(other, email=f"  {email} ", plan_id="101")))
    assert again["msg_code"] == "RESTAPI000", again
    return entries | {"holder": holder, "second": second, "other": other, "email": email}


def by_id(info: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {element["enrollment_id"]: element for element in info["data"]}


async def test_customer_info_by_enrollment_id_is_one_element_per_line_of_the_account(shared_stack, account):
    info = await shared_stack.call("/customer", body("customer_info", enrollment_id=account["second"]))
    assert info["msg_code"] == "RESTAPI000", info
    assert [element["enrollment_id"] for element in info["data"]] == [account["second"], account["holder"]]
    assert all(set(element) == ELEMENT for element in info["data"])
    second = info["data"][0]
    assert (second["first_name"], second["last_name"], second["status"]) == ("Sam", "O'Neil", "WAITING_ACTIVATION")
    assert (second["service_city"], second["service_state"], second["service_zip"], second["zip_code"]) == (
        "Atlanta",
        "GA",
        "30301",
        "30301",
    )
    assert (second["parent_enrollment_id"], second["mdn"], second["is_esim"]) == (account["holder"], None, "N")
    assert (second["plan_id"], second["plan_description"]) == ("102", "Unlimited talk & text, 5 GB high-speed data")
    holder = info["data"][1]
    assert (holder["status"], holder["mdn"]) == ("ACTIVE", account[account["holder"]]["mdn"])
    assert holder["activation_type"] == "NEWACTIVATION"


async def test_customer_info_by_customer_id(shared_stack, account):
    customer_id = account[account["holder"]]["customer_id"]
    info = await shared_stack.call("/customer", body("customer_info", customer_id=customer_id))
    assert (info["data"][0]["customer_id"], info["data"][0]["enrollment_id"]) == (customer_id, account["holder"])
    assert len(info["data"]) == 2


async def test_customer_info_by_email_answers_every_line_of_every_matching_account(shared_stack, account):
    info = await shared_stack.call("/customer", body("customer_info", email=account["email"]))
    assert info["msg_code"] == "RESTAPI000", info
    # Matched however it was written at enrollment (case, spaces): both accounts, three lines.
    assert [element["enrollment_id"] for element in info["data"]] == [
        account["holder"],
        account["second"],
        account["other"],
    ]
    assert by_id(info)[account["other"]]["plan_id"] == "101"
    unknown = await shared_stack.call("/customer", body("customer_info", email="nobody.here@example.com"))
    assert (unknown["msg_code"], unknown["errors"]) == ("RESTAPI110", [UNKNOWN])


async def test_every_customer_has_its_account_pin(shared_stack, account):
    """The line's pin when given, else a generated one; the same in creation, activate_line and customer_info."""
    holder, second = account["holder"], account["second"]
    assert account[holder]["pin"] == "0427"
    generated = account[second]["pin"]
    assert len(generated) == 4 and generated.isdigit()
    info = by_id(await shared_stack.call("/customer", body("customer_info", email=account["email"])))
    assert (info[holder]["pin"], info[second]["pin"]) == ("0427", generated)
    activated = await shared_stack.call("/customer", body("activate_line", enrollment_id=second))
    assert activated["msg_code"] == "RESTAPI000", activated
    assert activated["data"][0]["data"]["pin"] == generated


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({}, "Please enter either Customer ID, Enrollment ID or Email"),
        ({"customer_id": "12ab"}, "Customer Id must be numeric"),
        ({"enrollment_id": "E-1"}, "Enrollment Id must be letters and digits only"),
        ({"email": "pat.example.com"}, "Email must be a valid e-mail address"),
        ({"enrollment_id": "ENOSUCHLINE"}, UNKNOWN),
        ({"customer_id": "1"}, UNKNOWN),
    ],
)
async def test_customer_info_refusals(shared_stack, fields, error):
    refused = await shared_stack.call("/customer", body("customer_info", **fields))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", [error])


async def test_another_vendors_customer_is_unknown(shared_stack, account):
    for key in (
        {"enrollment_id": account["holder"]},
        {"customer_id": account[account["holder"]]["customer_id"]},
        {"email": account["email"]},
    ):
        request = body("customer_info", agent_id="other.agent", **key)
        assert (await shared_stack.call("/customer", request, vendor="OTHER"))["errors"] == [UNKNOWN], key
