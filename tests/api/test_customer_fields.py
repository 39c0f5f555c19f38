"""`/customer` create_customer_prepaid_multiline: every line rule of section 2.3 (conditional ones included)
and the request's own rules, each with one good value (RESTAPI000) and one bad one (the exact message).
Lines use activation_later Y and no password, so a good call needs no carrier activation and no argon2."""

from __future__ import annotations

import pytest
from sqlmodel import col, select

from models.enrollment.lines import Enrollment, Line
from tests.support.builders import (
    ANY_PORT_NUMBER,
    HANDOVER_FIELDS,
    PORT_FIELDS,
    create,
    fresh_port_number,
    line,
    new_iccid,
)

NAME_CHARACTERS = "may contain only English letters, spaces, apostrophes, accents grave and hyphens"
ADDRESS_CHARACTERS = "may contain only letters, digits, spaces and / # -"
CITY_CHARACTERS = "may contain only letters, spaces and hyphens"
STATE = "must be a US state or territory abbreviation"
ICCID_RULE = "must be 18 to 22 digits starting 89 with a valid check digit"
PORTIN_NEEDS = (
    "Port current carrier, Port first name, Port last name, Port address one, Port city, Port state, Port zip code, "
    "Port account number, Port account password, Port SSN and Port number are required for a PORTIN activation"
)


def later(enrollment_id: str, /, **overrides):
    """A line attached for activation later, without a password to hash; an override of None removes a field."""
    result = {**line(enrollment_id, activation_later="Y", password=None), **overrides}
    if result.get("port_number") == ANY_PORT_NUMBER:  # one port in progress per number: a number of its own
        result["port_number"] = fresh_port_number()
    return {key: value for key, value in result.items() if value is not None or key == "action"}


def refused_with(envelope, *errors: str) -> None:
    code, msg = ("RESTAPI110", "Error occurred") if len(errors) == 1 else ("RESTAPI010", "Multiple errors")
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == (code, msg, list(errors))


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("enrollment_id", None, "E-123", "Enrollment Id must be letters and digits only"),
        ("enrollment_id", None, "", "Please enter Enrollment Id"),
        ("first_name", "  Mary-Jane  ", "Pat1", f"First name {NAME_CHARACTERS}"),
        ("first_name", " " + "A" * 50 + " ", "A" * 51, "First name must be at most 50 characters"),
        ("first_name", "D'Arcy `Lee", "   ", "Please enter First name"),
        ("first_name", "Zoe", "Zoë", f"First name {NAME_CHARACTERS}"),
        ("middle_initial", "-Q'", "-'", "Middle initial must contain at least 1 letter"),
        ("middle_initial", " Q ", "Q.", f"Middle initial {NAME_CHARACTERS}"),
        ("last_name", "O`Ne", "O'", "Last name must contain at least 2 letters"),
        ("last_name", "de la Cruz", "Smith2", f"Last name {NAME_CHARACTERS}"),
        ("last_name", "Li", None, "Please enter Last name"),
        (
            "alternate_phone_number",
            "4045550123",
            "404555012",
            "Alternate phone number must be exactly 10 digits",
        ),
        ("email", "pat.o'neil+x@mail.example.com", "pat@example", "Email must be a valid e-mail address"),
        (
            "service_address_one",
            "12/B Main St #4-5",
            "12 Main St.",
            f"Service address one {ADDRESS_CHARACTERS}",
        ),
        ("service_address_two", "Apt #4", "Apt 4 (rear)", f"Service address two {ADDRESS_CHARACTERS}"),
        ("service_city", "Winston-Salem", "St. Louis", f"Service city {CITY_CHARACTERS}"),
        ("service_state", "ga", "GEO", f"Service state {STATE}"),
        ("service_zip", "30301", "3030", "Service zip must be exactly 5 digits"),
        ("plan_id", 101, "10a", "Plan Id must be numeric"),
        ("plan_id", "0103", "1" * 10, "Plan Id must be at most 9 digits"),
        ("plan_id", "104", "²", "Plan Id must be numeric"),
        ("notify_bill_via_text", "Y", "yes", "Notify bill via text must be Y or N"),
        ("notify_bill_via_email", "N", "X", "Notify bill via email must be Y or N"),
        ("activation_later", "Y", "Later", "Activation later must be Y or N"),
        ("pin", "0427", "427", "Pin must be exactly 4 digits"),
        ("pin", 4821, "12a4", "Pin must be exactly 4 digits"),
        ("phone_type", "4GLTE", "5G", "Phone type must be one of 4G, 3G or 4GLTE"),
        ("brand_code", "VMU", "XYZ", "Brand code must be one of ASW, BST, SPP, VMU, SPR or PLD"),
        ("sku_type", "BYO", "USED", "SKU type must be one of INTL, BYO or NEW"),
        ("device_type", "GSM", "LTE", "Device type must be CDMA or GSM"),
        ("activation_type", "NEWACTIVATION", "PORT", "Activation type must be NEWACTIVATION or PORTIN"),
        ("enrollment_type", "SHIPMENT", "PICKUP", "Enrollment type must be SHIPMENT or HANDOVER"),
        ("uiccid", new_iccid(), "8901260000000000001", f"UICCID {ICCID_RULE}"),
        ("esn", new_iccid(), "123", "ESN must be a valid SIM, IMEI, MEID or ESN"),
        ("carrier", "tmb", "XYZ", "Carrier must be a carrier abbreviation: ATT, TMB, VER, SPR, TMBRLY, USC"),
        ("billing_address_one", "9 Elm St", "PO Box 1, Main", f"Billing address one {ADDRESS_CHARACTERS}"),
        ("billing_city", "New York", "NY1", f"Billing city {CITY_CHARACTERS}"),
        ("billing_state", "NY", "N", f"Billing state {STATE}"),
        ("billing_zip", "10001", "100011", "Billing zip must be exactly 5 digits"),
        ("password", "secret1", "abc", "Password must be at least 6 characters"),
    ],
)
async def test_create_customer_prepaid_multiline_line_field_rule(shared_stack, field, good, bad, error):
    parent = await shared_stack.new_enrollment_id()
    refused_with(
        await shared_stack.call("/customer", create(parent, later(parent, **{field: bad}))),
        f"Line 1: {error}",
    )
    if field != "enrollment_id":  # the good value of an enrollment id is the issued one every call uses
        created = await shared_stack.call("/customer", create(parent, later(parent, **{field: good})))
        assert created["msg_code"] == "RESTAPI000", created


@pytest.mark.parametrize(
    ("complete", "removed", "error"),
    [
        (PORT_FIELDS, {"port_ssn": ""}, "Port SSN is required for a PORTIN activation"),
        (
            PORT_FIELDS,
            {name: None for name in PORT_FIELDS if name.startswith("port_")},
            PORTIN_NEEDS,
        ),
        ({**HANDOVER_FIELDS, "esn": new_iccid()}, {"esn": None}, "ESN is required for a HANDOVER enrollment"),
        (
            {**HANDOVER_FIELDS, "esn": new_iccid()},
            {"handover_type": None, "esn": None, "carrier": ""},
            "Handover type, ESN and Carrier are required for a HANDOVER enrollment",
        ),
        (
            {"phone_type": "4G", "uiccid": new_iccid()},
            {"uiccid": None},
            "UICCID is required for phone type 4G",
        ),
    ],
)
async def test_create_customer_prepaid_multiline_conditional_fields_are_required(
    shared_stack, complete, removed, error
):
    parent = await shared_stack.new_enrollment_id()
    refused_with(
        await shared_stack.call("/customer", create(parent, later(parent, **{**complete, **removed}))),
        f"Line 1: {error}",
    )
    created = await shared_stack.call("/customer", create(parent, later(parent, **complete)))
    assert created["msg_code"] == "RESTAPI000", created


@pytest.mark.parametrize(
    ("field", "bad", "error"),
    [
        ("port_zip_code", "3030", "Port zip code must be exactly 5 digits"),
        ("port_ssn", "12345", "Port SSN must be the last 4 digits or all 9 digits"),
        (
            "port_number",
            "1045551234",
            "Port number must be 10 digits; area code and exchange may not start with 0 or 1",
        ),
        ("port_state", "Georgia", f"Port state {STATE}"),
        ("port_first_name", "Pat9", f"Port first name {NAME_CHARACTERS}"),
    ],
)
async def test_create_customer_prepaid_multiline_port_field_rule(shared_stack, field, bad, error):
    parent = await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/customer", create(parent, later(parent, **{**PORT_FIELDS, field: bad})))
    refused_with(refused, f"Line 1: {error}")


async def test_create_customer_prepaid_multiline_handover_type_must_be_cbe(shared_stack):
    parent = await shared_stack.new_enrollment_id()
    handover = {**HANDOVER_FIELDS, "esn": new_iccid()}
    refused = await shared_stack.call(
        "/customer", create(parent, later(parent, **{**handover, "handover_type": "CBE"}))
    )
    refused_with(refused, "Line 1: Handover type must be cbe")


async def test_create_customer_prepaid_multiline_reports_field_and_conditional_rules_together(shared_stack):
    parent = await shared_stack.new_enrollment_id()
    bad = later(parent, email="pat@", service_zip="303", phone_type="4G", activation_type="PORTIN")
    refused_with(
        await shared_stack.call("/customer", create(parent, bad)),
        "Line 1: Email must be a valid e-mail address",
        "Line 1: Service zip must be exactly 5 digits",
        f"Line 1: {PORTIN_NEEDS}",
        "Line 1: UICCID is required for phone type 4G",
    )


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"parent_enrollment_id": ""}, "Please enter Parent Enrollment Id"),
        ({"parent_enrollment_id": "E-1"}, "Parent Enrollment Id must be letters and digits only"),
        ({"invoice_number": "I" * 33}, "Invoice number must be at most 32 characters"),
        ({"lines": []}, "Lines must hold at least 1 line"),
        ({"lines": None}, "Please enter Lines"),
        ({"lines": "all"}, "Lines must be a list"),
        ({"lines": ["line"]}, "Line 1 must be an object"),
    ],
)
async def test_create_customer_prepaid_multiline_request_field_rule(shared_stack, overrides, error):
    parent = await shared_stack.new_enrollment_id()
    request = {key: value for key, value in {**create(parent, later(parent)), **overrides}.items() if value is not None}
    refused_with(await shared_stack.call("/customer", request), error)
    good = create(parent, later(parent))  # an invoice given must be the order's (test_payment_before_activation)
    assert (await shared_stack.call("/customer", good))["msg_code"] == "RESTAPI000"


@pytest.mark.parametrize("plan_id", ["999", "105"])
async def test_create_customer_prepaid_multiline_plan_id_must_be_a_listed_plan(shared_stack, plan_id):
    parent = await shared_stack.new_enrollment_id()
    refused = await shared_stack.call("/customer", create(parent, later(parent, plan_id=plan_id)))
    refused_with(refused, f"Plan id {plan_id} is not a plan of the plan list")


@pytest.mark.parametrize("settings_overrides", [{"max_lines": 2}])
async def test_create_customer_prepaid_multiline_lines_at_most_max_lines(stack):
    ids = [await stack.new_enrollment_id() for _ in range(3)]
    refused_with(
        await stack.call("/customer", create(ids[0], *(later(i) for i in ids))),
        "Lines must hold at most 2 lines",
    )
    assert (await stack.call("/customer", create(ids[0], *(later(i) for i in ids[:2]))))["msg_code"] == "RESTAPI000"


@pytest.mark.parametrize(
    "action",
    [
        "create_customer_prepaid_multiline",
        "add_line_nonlifeline_customer",
        "create_prepaid_postpaid_customer_v2",
    ],
)
async def test_create_customer_prepaid_multiline_accepts_its_aliases(shared_stack, action):
    parent = await shared_stack.new_enrollment_id()
    created = await shared_stack.call("/customer", create(parent, later(parent), action=action))
    assert created["msg_code"] == "RESTAPI000", created
    assert created["data"][0]["data"]["enrollment_id"] == parent


@pytest.mark.parametrize(("source", "code"), [("WEBSITE", "RESTAPI000"), ("TABLET", "RESTAPI103")])
async def test_create_customer_prepaid_multiline_source_is_api_or_website(shared_stack, source, code):
    parent = await shared_stack.new_enrollment_id()
    assert (await shared_stack.call("/customer", create(parent, later(parent), source=source)))["msg_code"] == code


async def test_create_customer_prepaid_multiline_one_bad_line_creates_nothing(shared_stack):
    ids = [await shared_stack.new_enrollment_id() for _ in range(3)]
    lines = [later(ids[0]), later(ids[1], service_zip="ABCDE"), later(ids[2], last_name="X", phone_type="4G")]
    refused_with(
        await shared_stack.call("/customer", create(ids[0], *lines)),
        "Line 2: Service zip must be exactly 5 digits",
        "Line 3: Last name must contain at least 2 letters",
        "Line 3: UICCID is required for phone type 4G",
    )
    refused_with(
        await shared_stack.call("/customer", create(ids[0], lines[0], lines[1])),
        "Line 2: Service zip must be exactly 5 digits",
    )
    async with shared_stack.db.transaction() as session:
        assert (await session.exec(select(Line).where(col(Line.enrollment_id).in_(ids)))).all() == []
        slots = (await session.exec(select(Enrollment).where(col(Enrollment.enrollment_id).in_(ids)))).all()
    assert [slot.claimed_by for slot in slots] == [None, None, None]
    created = await shared_stack.call("/customer", create(ids[0], *(later(i) for i in ids)))
    assert created["msg_code"] == "RESTAPI000" and len(created["data"]) == 3


@pytest.mark.parametrize(
    ("good", "bad", "error"),
    [
        ({"service_zip": "90001", "service_state": "CA"}, {"service_zip": "90001"}, "Service zip 90001 is in CA, "
         "not GA"),
        ({"service_zip": "00601", "service_state": "pr"}, {"service_zip": "00000"}, "Service zip 00000 is not a US "
         "ZIP code"),
        ({"service_zip": "30303"}, {"service_zip": "14645"}, "Service zip 14645 is not a US ZIP code"),  # retired
    ],
)  # fmt: skip
async def test_create_customer_prepaid_multiline_service_zip_is_one_of_the_service_states(
    shared_stack, good, bad, error
):
    """decisions.md `/address` row: the ZIP data that answers address_validation_usps checks creation too; a
    ZIP outside its state is the line's field error, and nothing is created."""
    parent = await shared_stack.new_enrollment_id()
    refused_with(await shared_stack.call("/customer", create(parent, later(parent, **bad))), f"Line 1: {error}")
    async with shared_stack.db.transaction() as session:
        assert (await session.exec(select(Line).where(Line.enrollment_id == parent))).all() == []
    created = await shared_stack.call("/customer", create(parent, later(parent, **good)))
    assert created["msg_code"] == "RESTAPI000", created
