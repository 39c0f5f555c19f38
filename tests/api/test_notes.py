"""`/notes` add_notes: every field rule, the customer named by customer_id and enrollment_id together, the
author, and another vendor's customer refused. Customers are made through the real flow (shared stack)."""

from __future__ import annotations

import pytest
from sqlmodel import select

from models.agents import Note
from models.auth import ApiUser
from tests.support.builders import body, create, line

NO_SUCH_CUSTOMER = "Customer Id and Enrollment Id do not name an existing customer"


async def new_customer(stack, vendor: str = "DEMO", agent: str = "demo.agent") -> dict[str, str]:
    """A line created through check_service_availability and create_customer_prepaid_multiline."""
    base = {"source": "API", "agent_id": agent}
    issued = await stack.call(
        "/enrollment", {**base, "action": "check_service_availability", "zip_code": "30301"}, vendor=vendor
    )
    enrollment_id = issued["data"]["enrollment_id"]
    later = line(enrollment_id, activation_later="Y", password=None)
    created = await stack.call("/customer", create(enrollment_id, later, agent_id=agent), vendor=vendor)
    assert created["msg_code"] == "RESTAPI000", created
    return {"enrollment_id": enrollment_id, "customer_id": created["data"][0]["data"]["customer_id"]}


@pytest.fixture(scope="module")
async def customer(shared_stack) -> dict[str, str]:
    return await new_customer(shared_stack)


def note(customer, **overrides):
    return body("add_notes", **{**customer, **overrides})


def assert_refused(envelope, *errors):
    code, msg = ("RESTAPI110", "Error occurred") if len(errors) == 1 else ("RESTAPI010", "Multiple errors")
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (code, msg, list(errors))


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("customer_notes", "x" * 4000, "x" * 4001, "Customer notes must be at most 4,000 characters"),
        ("customer_notes", "  Called back  ", "   ", "Please enter Customer notes"),
        (
            "coordinate",
            {"latitude": -90, "longitude": 180},
            {"latitude": "91", "longitude": "0"},
            "Latitude must be a latitude between -90 and 90",
        ),
        (
            "coordinate",
            {"latitude": "0", "longitude": "-180"},
            {"latitude": "0", "longitude": "180.01"},
            "Longitude must be a longitude between -180 and 180",
        ),
        ("coordinate", {"latitude": "1", "longitude": "2", "extra": "x"}, {"latitude": "1"}, "Please enter Longitude"),
        ("coordinate", {"latitude": "45.5", "longitude": "-122.6"}, "45.5,-122.6", "Coordinate must be an object"),
        ("coordinate", {"latitude": "45.5", "longitude": "-122.6"}, None, "Please enter Coordinate"),
        ("is_activity", "0", "2", "Is activity must be 0 or 1"),
        ("is_activity", 1, "yes", "Is activity must be 0 or 1"),
        ("activity_type", "FOLLOW_UP", "line\nbreak", "Activity type must not contain line breaks"),
        ("activity_type", "A" * 100, "A" * 101, "Activity type must be at most 100 characters"),
        ("enrollment_id", None, "E-1", "Enrollment Id must be letters and digits only"),
        ("enrollment_id", None, "", "Please enter Enrollment Id"),
        ("customer_id", None, "C123", "Customer Id must be numeric"),
        ("customer_id", None, None, "Please enter Customer Id"),
    ],
)
async def test_add_notes_field_rule(shared_stack, customer, field, good, bad, error):
    if good is not None:
        answer = await shared_stack.call("/notes", note(customer, **{field: good}))
        assert answer["msg_code"] == "RESTAPI000", answer
    refused = await shared_stack.call(
        "/notes", {**note(customer), field: bad} if bad is None else note(customer, **{field: bad})
    )
    assert_refused(refused, error)


async def test_add_notes_numeric_customer_id_as_a_number(shared_stack, customer):
    answer = await shared_stack.call("/notes", note(customer, customer_id=int(customer["customer_id"])))
    assert answer["msg_code"] == "RESTAPI000", answer


async def test_add_notes_is_linked_to_the_customer_and_authored_by_the_agent(shared_stack, customer):
    answer = await shared_stack.call("/notes", note(customer, customer_notes="Wants paper bills", is_activity="0"))
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", "Success")
    async with shared_stack.db.transaction() as session:
        stored = await session.get(Note, int(answer["data"]["notes_id"]))
    assert (stored.enrollment_id, stored.customer_id) == (customer["enrollment_id"], str(customer["customer_id"]))
    assert (stored.latitude, stored.longitude, stored.is_activity, stored.activity_type) == (
        "33.7490",
        "-84.3880",
        False,
        "CALL",
    )
    assert stored.agent_id is not None
    assert "Wants paper bills" not in stored.text  # encrypted at rest
    assert shared_stack.app.state.resources.cipher.decrypt(stored.text) == "Wants paper bills"


async def test_add_notes_without_agent_is_authored_by_the_api_user(shared_stack, customer):
    answer = await shared_stack.call("/notes", note(customer, agent_id=None))
    assert answer["msg_code"] == "RESTAPI000", answer
    async with shared_stack.db.transaction() as session:
        stored = await session.get(Note, int(answer["data"]["notes_id"]))
        author = await session.get(ApiUser, stored.api_user_id)
    assert stored.agent_id is None and author.username == "demo.api"


async def test_add_notes_customer_and_enrollment_must_name_the_same_customer(shared_stack, customer):
    other = await new_customer(shared_stack)
    assert_refused(
        await shared_stack.call("/notes", note(customer, customer_id=other["customer_id"])), NO_SUCH_CUSTOMER
    )
    assert_refused(await shared_stack.call("/notes", note(customer, enrollment_id="ENOSUCH1")), NO_SUCH_CUSTOMER)
    assert (await shared_stack.call("/notes", note(other)))["msg_code"] == "RESTAPI000"


async def test_add_notes_for_another_vendors_customer_is_refused(shared_stack, customer):
    theirs = await new_customer(shared_stack, vendor="OTHER", agent="other.agent")
    assert_refused(await shared_stack.call("/notes", note(theirs)), NO_SUCH_CUSTOMER)
    ours = await shared_stack.call("/notes", note(theirs, agent_id="other.agent"), vendor="OTHER")
    assert ours["msg_code"] == "RESTAPI000", ours
    async with shared_stack.db.transaction() as session:
        stored = (await session.exec(select(Note).where(Note.enrollment_id == theirs["enrollment_id"]))).all()
    assert len(stored) == 1


async def test_add_notes_repeated_transaction_id_answers_the_first_note(shared_stack, customer):
    first = await shared_stack.call("/notes", note(customer, external_transaction_id="NOTE1"))
    again = await shared_stack.call("/notes", note(customer, external_transaction_id="NOTE1"))
    assert first["data"] == again["data"]


@pytest.mark.parametrize(("source", "code"), [("TABLET", "RESTAPI000"), ("IVR", "RESTAPI103")])
async def test_add_notes_sources(shared_stack, customer, source, code):
    assert (await shared_stack.call("/notes", note(customer, source=source)))["msg_code"] == code
