"""`/cards` saved_card_list: the customer's login (line e-mail and password), masking (no CVV anywhere, the
database included), the card_id filter, vendor_id, and throttled wrong passwords. Customers and cards are made
through the real flow: check_service_availability → make_payment (save_card Y) → create_customer_prepaid_multiline."""

from __future__ import annotations

import hashlib
import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import SQLModel, col, select

from models.auth import CustomerLogin
from models.enrollment.lines import Line
from models.payment import SavedCard
from models.types import utcnow
from tests.support.builders import body, create, line

INVALID = "Invalid username or password"
VISA, MASTERCARD, AMEX = "4111111111111111", "5555555555554444", "378282246310005"
AMEX_CVV = "7391"


async def customer_with_cards(stack, *cards: tuple[str, str]) -> dict[str, str]:
    """A line with a password whose enrollment paid once per (card number, CVV), saving each card."""
    enrollment_id = await stack.new_enrollment_id()
    for index, (number, cvv) in enumerate(cards):
        request = body(
            "make_payment",
            enrollment_id=enrollment_id,
            card_number=number,
            cvv=cvv,
            external_transaction_id=f"{enrollment_id}P{index}",
        )
        paid = await stack.call("/payment", request)
        assert paid["msg_code"] == "RESTAPI000", paid
    entry = line(enrollment_id, activation_later="Y", password="line-pass-1")
    created = await stack.call("/customer", create(enrollment_id, entry))
    assert created["msg_code"] == "RESTAPI000", created
    return {"enrollment_id": enrollment_id, "username": entry["email"], "password": "line-pass-1"}


@pytest.fixture(scope="module")
async def customer(shared_stack) -> dict[str, str]:
    return await customer_with_cards(shared_stack, (VISA, "123"), (AMEX, AMEX_CVV))


def cards(login, **overrides):
    return body("saved_card_list", **{**login, **overrides})


def assert_refused(envelope, error, code="RESTAPI110", msg="Error occurred"):
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (code, msg, [error])


async def test_saved_card_list_answers_masked_records_without_cvv(shared_stack, customer):
    answer = await shared_stack.call("/cards", cards(customer))
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", "Success")
    first, second = answer["data"]
    assert first == {
        "id": first["id"],
        "status": "Y",
        "card_number": "************1111",
        "cvv": "",
        "name_on_card": "Pat Q O'Neil",
        "card_type": "Visa",
        "exp_month": "12",
        "exp_year": "2030",
        "address1": "12 Main St",
        "address2": "",
        "zip": "30301",
        "city": "Atlanta",
        "state": "GA",
        "country": "US",
        "is_expired": "N",
        "is_primary": "Y",
    }
    assert (second["card_number"], second["card_type"], second["cvv"], second["is_primary"]) == (
        "************0005",
        "American Express",
        "",
        "N",
    )
    assert int(second["id"]) > int(first["id"])
    assert VISA not in str(answer) and AMEX not in str(answer)


async def test_saved_card_list_card_id_restricts_the_answer(shared_stack, customer):
    everything = (await shared_stack.call("/cards", cards(customer)))["data"]
    second = everything[1]["id"]
    for card_id in (second, int(second)):  # numeric: a JSON number or a digit string
        only = await shared_stack.call("/cards", cards(customer, card_id=card_id))
        assert [card["id"] for card in only["data"]] == [second]
        assert only["data"][0]["is_primary"] == "N"  # still the second saved card
    assert (await shared_stack.call("/cards", cards(customer, card_id="999999")))["data"] == []
    assert_refused(await shared_stack.call("/cards", cards(customer, card_id="12a")), "Card Id must be numeric")


async def test_saved_card_list_is_expired_is_computed_from_the_expiry(shared_stack, customer):
    first = (await shared_stack.call("/cards", cards(customer)))["data"][0]
    async with shared_stack.db.transaction() as session:
        await session.execute(
            update(SavedCard).where(col(SavedCard.id) == int(first["id"])).values(exp_year=str(date.today().year - 1))
        )
    try:
        again = (await shared_stack.call("/cards", cards(customer, card_id=first["id"])))["data"][0]
        assert again["is_expired"] == "Y"
    finally:
        async with shared_stack.db.transaction() as session:
            await session.execute(
                update(SavedCard).where(col(SavedCard.id) == int(first["id"])).values(exp_year="2030")
            )


async def test_saved_card_list_no_cvv_or_full_number_anywhere_in_the_database(shared_stack, customer):
    assert (await shared_stack.call("/cards", cards(customer)))["msg_code"] == "RESTAPI000"
    assert not [
        f"{t.name}.{c.name}" for t in SQLModel.metadata.tables.values() for c in t.columns if "cvv" in c.name.lower()
    ]
    database = Path(shared_stack.app.state.settings.db_url.removeprefix("sqlite+aiosqlite:///"))
    raw = b"".join(
        path.read_bytes() for path in (database, database.with_name(database.name + "-wal")) if path.exists()
    )
    assert VISA.encode() not in raw and AMEX.encode() not in raw
    # The CVV as a value of its own (not a run of digits inside a base64 or hex string).
    assert not re.search(rb"(?<![A-Za-z0-9+/=_-])" + AMEX_CVV.encode() + rb"(?![A-Za-z0-9+/=_-])", raw)


@pytest.mark.parametrize(
    "wrong",
    [
        {"password": "line-pass-2"},
        {"password": "line-pass-1 "},  # passwords are never trimmed
        {"username": "someone.else@example.com"},
        {"enrollment_id": "ENOSUCH1"},
    ],
)
async def test_saved_card_list_wrong_customer_login_is_refused(shared_stack, customer, wrong):
    assert_refused(await shared_stack.call("/cards", cards(customer, **wrong)), INVALID)


async def test_saved_card_list_username_is_the_email_in_any_case(shared_stack, customer):
    answer = await shared_stack.call("/cards", cards(customer, username=f"  {customer['username'].upper()} "))
    assert answer["msg_code"] == "RESTAPI000", answer


async def test_saved_card_list_email_is_kept_as_a_keyed_digest(shared_stack, customer):
    # Issue 19, finding 13: an unkeyed SHA-256 could be matched against a list of addresses by anyone holding
    # the table; the keyed digest needs the PII key too.
    async with shared_stack.db.transaction() as session:
        stored = (
            await session.exec(select(Line.email_hash).where(Line.enrollment_id == customer["enrollment_id"]))
        ).one()
    address = customer["username"].strip().lower()
    assert stored != hashlib.sha256(address.encode()).hexdigest()
    assert stored == shared_stack.app.state.resources.cipher.digest("email", address)


async def test_saved_card_list_another_vendors_token_cannot_log_in(shared_stack, customer):
    answer = await shared_stack.call("/cards", cards(customer, agent_id="other.agent"), vendor="OTHER")
    assert_refused(answer, INVALID)


@pytest.mark.parametrize(("good", "bad"), [("DEMO", "OTHER"), ("demo", "NOPE")])
async def test_saved_card_list_vendor_id_must_be_the_tokens(shared_stack, customer, good, bad):
    assert (await shared_stack.call("/cards", cards(customer, vendor_id=good)))["msg_code"] == "RESTAPI000"
    assert_refused(
        await shared_stack.call("/cards", cards(customer, vendor_id=bad)),
        "Invalid company",
        "RESTAPI107",
        "Invalid company",
    )


@pytest.mark.parametrize(
    ("field", "bad", "error"),
    [
        ("enrollment_id", "E-1", "Enrollment Id must be letters and digits only"),
        ("enrollment_id", "", "Please enter Enrollment Id"),
        ("username", "  ", "Please enter Username"),
        ("password", "", "Please enter Password"),
        ("password", "x" * 129, "Password must be at most 128 characters"),
    ],
)
async def test_saved_card_list_field_rule(shared_stack, customer, field, bad, error):
    assert (await shared_stack.call("/cards", cards(customer)))["msg_code"] == "RESTAPI000"
    assert_refused(await shared_stack.call("/cards", cards(customer, **{field: bad})), error)


async def test_saved_card_list_agent_is_optional_and_sources_are_checked(shared_stack, customer):
    assert (await shared_stack.call("/cards", cards(customer, agent_id=None)))["msg_code"] == "RESTAPI000"
    assert (await shared_stack.call("/cards", cards(customer, source="IVR")))["msg_code"] == "RESTAPI103"


async def test_saved_card_list_customer_without_saved_cards_gets_an_empty_list(shared_stack):
    login = await customer_with_cards(shared_stack)
    assert (await shared_stack.call("/cards", cards(login)))["data"] == []


async def test_saved_card_list_repeated_wrong_passwords_lock_the_customer_login(shared_stack):
    login = await customer_with_cards(shared_stack, (VISA, "123"))
    limit = shared_stack.app.state.settings.auth.max_failures
    for _ in range(limit):
        assert_refused(await shared_stack.call("/cards", cards(login, password="wrong-pass")), INVALID)
    # Locked: even the right password is refused until the lockout ends.
    assert_refused(await shared_stack.call("/cards", cards(login)), "Too many failed logins; try again later")
    async with shared_stack.db.transaction() as session:  # the lockout ends
        await session.execute(update(CustomerLogin).values(locked_until=utcnow() - timedelta(seconds=1)))
    assert (await shared_stack.call("/cards", cards(login)))["msg_code"] == "RESTAPI000"
