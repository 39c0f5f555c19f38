"""Customer ids are JSON numbers (decisions.md, "Customer ids"; issue 34): the original answers `"cust_id": 102245`
and its iOS and Flutter apps decode integers, so a string made them report a created customer as a failure. Every
answer that carries them gives integers; requests take a number or a string of digits; the OpenAPI document types
them as integers. `mdn`, `msid` and `enrollment_id` stay strings."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from tests.support.builders import body, create, line

UNKNOWN = "No Record Found"
CREATION_FORMS = [
    "create_customer_prepaid_multiline",
    "create_prepaid_postpaid_customer_v2",
    "add_line_nonlifeline_customer",
]


def assert_ids_are_numbers(record: dict[str, Any], *names: str) -> None:
    for name in names:
        assert type(record[name]) is int and record[name] > 0, (name, record)
    for name in ("mdn", "msid", "enrollment_id"):
        assert record.get(name) is None or type(record[name]) is str, (name, record)


@pytest.mark.parametrize("action", CREATION_FORMS)
async def test_creation_entries_carry_numeric_customer_ids_in_every_form(shared_stack, action):
    holder, added = await shared_stack.new_enrollment_id(), await shared_stack.new_enrollment_id()
    created = await shared_stack.call("/customer", create(holder, line(holder), line(added), action=action))
    assert created["msg_code"] == "RESTAPI000", created
    first, second = (entry["data"] for entry in created["data"])
    assert_ids_are_numbers(first, "customer_id", "cust_id")
    assert_ids_are_numbers(second, "customer_id", "cust_id")
    assert second["cust_id"] == first["customer_id"] == first["cust_id"] != second["customer_id"]


@pytest.mark.parametrize(
    ("path", "action", "extra"),
    [("/customer", "activate_line", {}), ("/inventory", "new_number_activation_with_zip_code", {"zip_code": "30301"})],
)
async def test_activation_answers_numeric_customer_ids(shared_stack, path, action, extra):
    parent = await shared_stack.new_enrollment_id()
    await shared_stack.call("/customer", create(parent, line(parent, activation_later="Y")))
    activated = await shared_stack.call(path, body(action, enrollment_id=parent, **extra))
    assert activated["msg_code"] == "RESTAPI000", activated
    assert_ids_are_numbers(activated["data"][0]["data"], "customer_id", "cust_id")


@pytest.fixture(scope="module")
async def customer(shared_stack) -> dict[str, Any]:
    enrollment_id = await shared_stack.new_enrollment_id()
    created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id)))
    return {"enrollment_id": enrollment_id, "customer_id": created["data"][0]["data"]["customer_id"]}


@pytest.mark.parametrize("as_sent", [int, str], ids=["a number", "a string of digits"])
async def test_customer_info_takes_the_id_as_a_number_or_digits_and_answers_a_number(shared_stack, customer, as_sent):
    info = await shared_stack.call("/customer", body("customer_info", customer_id=as_sent(customer["customer_id"])))
    assert info["msg_code"] == "RESTAPI000", info
    [found] = info["data"]
    assert (found["customer_id"], found["enrollment_id"]) == (customer["customer_id"], customer["enrollment_id"])
    assert_ids_are_numbers(found, "customer_id")


@pytest.mark.parametrize(
    ("sent", "error"),
    [
        ("12ab", "Customer Id must be numeric"),
        (-5, "Customer Id must be numeric"),
        (1.5, "Customer Id must be numeric"),
        (10**10, "Customer Id must be at most 9 digits"),
        (1, UNKNOWN),
    ],
)
async def test_customer_info_refuses_a_customer_id_that_is_no_number(shared_stack, sent, error):
    refused = await shared_stack.call("/customer", body("customer_info", customer_id=sent))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", [error])


async def test_a_boolean_is_no_customer_id(shared_stack):
    refused = await shared_stack.call("/customer", body("customer_info", customer_id=True))
    assert refused["msg_code"] == "RESTAPI110" and refused["errors"][0].startswith("Customer Id"), refused


async def test_leading_zeros_name_the_same_customer(shared_stack, customer):
    info = await shared_stack.call("/customer", body("customer_info", customer_id=f"00{customer['customer_id']}"))
    assert info["data"][0]["customer_id"] == customer["customer_id"], info


async def test_add_notes_takes_the_numeric_customer_id_it_was_answered(shared_stack, customer):
    note = body("add_notes", enrollment_id=customer["enrollment_id"], customer_id=customer["customer_id"])
    assert (await shared_stack.call("/notes", note))["msg_code"] == "RESTAPI000"


async def test_another_vendors_numeric_customer_id_names_nothing(shared_stack, customer):
    request = body("customer_info", agent_id="other.agent", customer_id=customer["customer_id"])
    refused = await shared_stack.call("/customer", request, vendor="OTHER")
    assert refused["errors"] == [UNKNOWN] and customer["enrollment_id"] not in str(refused)
    note = body(
        "add_notes",
        agent_id="other.agent",
        enrollment_id=customer["enrollment_id"],
        customer_id=customer["customer_id"],
    )
    assert (await shared_stack.call("/notes", note, vendor="OTHER"))["msg_code"] == "RESTAPI110"


async def test_the_openapi_document_types_customer_ids_as_integers(api):
    schemas = (await api.http.get("/openapi.json")).json()["components"]["schemas"]
    for answer, names in (("CustomerRecord", ("customer_id", "cust_id")), ("CustomerLine", ("customer_id",))):
        for name in names:
            assert schemas[answer]["properties"][name]["type"] == "integer", (answer, name)
    for request in ("CustomerInfo", "AddNotes"):
        typed = schemas[request]["properties"]["customer_id"]
        found = typed.get("anyOf", [typed])
        assert {"type": "integer"}.items() <= found[0].items(), (request, typed)


def test_both_clients_type_customer_ids_as_integers():
    from lineup_client import actions

    for answer, names in (
        (actions.CustomerRecord, ("customer_id", "cust_id")),
        (actions.CustomerLine, ("customer_id",)),
    ):
        hints = get_type_hints(answer)
        assert [hints[name] for name in names] == [int] * len(names), answer
    assert tuple(map(int, actions.VERSION.split("."))) >= (0, 2, 0)  # the version that made them numbers
    schema = (Path(__file__).parents[2] / "clients/typescript/src/schema.ts").read_text()
    assert re.search(r"\bcust_id: number;", schema) and not re.search(r"\bcustomer_id: string;", schema)
