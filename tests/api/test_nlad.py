"""`/nlad` nlad_etc_check and tpiv_listing against a real worker and the sandbox's NLAD: field rules, every
NLAD answer, the outage budget, what a check records, and the TPIV listing built from those records."""

from __future__ import annotations

import time
from datetime import date

import pytest
from sqlmodel import select

from models.eligibility import EligibilityCheck
from tests.support.builders import body

NAME_RULE = "may contain only English letters, spaces, apostrophes, accents grave and hyphens"
NLAD_DOWN = "NLAD is unavailable, please try again later"


def check(**overrides):
    return body("nlad_etc_check", **overrides)


def refusal(envelope):
    return envelope["msg_code"], envelope["msg"], envelope.get("errors")


# (field, good, bad, the bad value's message): the bad values need no worker, the good ones run end to end.
RULES = [
    ("first_name", "  Mary-Jane  ", "Mary2", f"First name {NAME_RULE}"),
    ("first_name", "A" * 50, "A" * 51, "First name must be at most 50 characters"),
    ("middle_name", "`Q", "Q.", f"Middle name {NAME_RULE}"),
    ("last_name", "D'Arcy-Smith", "", "Please enter Last name"),
    ("last_name", "de la Cruz", "Núñez", f"Last name {NAME_RULE}"),
    ("ssn", "0042", "12345", "SSN must be exactly 4 digits"),
    ("ssn", "9876", "12a4", "SSN must be exactly 4 digits"),
    ("dob", "2000-02-29", "2001-02-29", "Date of birth must be a real date in the form YYYY-MM-DD"),
    ("dob", "1980-04-12", "04/12/1980", "Date of birth must be a real date in the form YYYY-MM-DD"),
    ("dob", "1961-12-31", "2999-01-01", "Date of birth must be a real date in the form YYYY-MM-DD, in the past"),
    ("address_one", "400 Elm St #2", "12 Main St.", "Address one may contain only letters, digits, spaces and / # -"),
    ("city", "Winston-Salem", "Atlanta2", "City may contain only letters, spaces and hyphens"),
    ("state", "pr", "XX", "State must be a US state or territory abbreviation"),
    ("zip_code", "30301", "3030", "Zip code must be exactly 5 digits"),
    ("zip_code", "10001", "300301", "Zip code must be exactly 5 digits"),
    ("enrollment_id", "EABC123", "E-1", "Enrollment Id must be letters and digits only"),
    ("address_validation", "N", "X", "Address validation must be Y or N"),
]


@pytest.mark.parametrize(("field", "good", "bad", "error"), RULES)
async def test_nlad_etc_check_field_rule(api, field, good, bad, error):
    assert refusal(await api.call("/nlad", check(**{field: bad}))) == ("RESTAPI110", "Error occurred", [error])


async def test_nlad_etc_check_good_values_and_sources_pass(stack):
    goods = [(field, good) for field, good, _, _ in RULES] + [("source", "TABLET"), ("source", "website")]
    for field, good in goods:
        accepted = await stack.call("/nlad", check(**{field: good}))
        assert (accepted["msg_code"], accepted["data"]) == ("RESTAPI000", "SUBSCRIBER_NOT_FOUND"), (field, accepted)


async def test_nlad_etc_check_missing_fields_are_multiple_errors(api):
    refused = await api.call("/nlad", check(ssn=None, first_name=None, dob=""))
    assert refusal(refused) == (
        "RESTAPI010",
        "Multiple errors",
        ["Please enter SSN", "Please enter First name", "Please enter Date of birth"],
    )


async def test_nlad_etc_check_refuses_a_source_not_allowed(api):
    envelope = await api.call("/nlad", check(source="IVR"))
    assert refusal(envelope) == ("RESTAPI103", "Source Not Allowed", ["Source Not Allowed"])


# sandbox.md's NLAD table: (what the subscriber has, NLAD's answer)
ANSWERS = [
    ({"ssn": "1111"}, "TPIV_FAIL_IDENTITY_NOT_FOUND"),
    ({"ssn": "2222"}, "TPIV_FAIL_NAME_SSN4"),
    ({"ssn": "3333"}, "TPIV_FAIL_DOB"),
    ({"ssn": "4444"}, "TPIV_FAIL_DECEASED"),
    ({"ssn": "5555"}, "DUPLICATE_SUBSCRIBER"),
    ({"ssn": "6666"}, "DUPLICATE_ADDRESS"),
    ({"ssn": "1234"}, "SUBSCRIBER_NOT_FOUND"),
    ({"address_two": "Invalid Unit 4"}, "INVALID_ADDRESS"),
    ({"dob": date.today().replace(year=date.today().year - 17, day=1).isoformat()}, "SUBSCRIBER_UNDER_18"),
]


async def test_nlad_etc_check_returns_each_nlad_answer_as_data(stack):
    for overrides, answer in ANSWERS:
        envelope = await stack.call("/nlad", check(**overrides))
        assert (envelope["msg_code"], envelope["msg"], envelope["data"]) == ("RESTAPI000", "Success", answer), overrides
        assert envelope["token"]
    async with stack.db.transaction() as session:
        outcomes = [record.outcome for record in (await session.exec(select(EligibilityCheck))).all()]
    assert sorted(outcomes) == sorted(answer for _, answer in ANSWERS)  # every check is recorded once


# The budget as a setting, small: the outage is answered once it is spent, and the test waits seconds, not 10.
@pytest.mark.parametrize("settings_overrides", [{"lookup_budget_seconds": 2.0, "temporal_rpc_seconds": 2.0}])
async def test_nlad_etc_check_nlad_down_is_a_clean_error_within_the_budget(stack):
    started = time.monotonic()
    envelope = await stack.call("/nlad", check(ssn="7777"))
    assert time.monotonic() - started < 2.0 + 2.0  # within the lookup's budget and a round trip to Temporal
    assert refusal(envelope) == ("RESTAPI110", "Error occurred", [NLAD_DOWN])
    async with stack.db.transaction() as session:
        assert (await session.exec(select(EligibilityCheck))).all() == []  # no answer, nothing to record


async def test_nlad_etc_check_records_the_outcome_without_ssn_or_birth_date(stack, data_dir):
    request = check(
        ssn="3333",
        first_name=" mary ",
        middle_name="Ann",
        last_name="o'Neil",
        dob="1967-03-21",
        zip_code="30303",
        enrollment_id="ETPIV1",
    )
    response = await stack.post("/nlad", request, token=await stack.token())
    assert response.json()["data"] == "TPIV_FAIL_DOB"
    async with stack.db.transaction() as session:
        record = (await session.exec(select(EligibilityCheck))).one()
    assert (record.outcome, record.zip_code, record.enrollment_id) == ("TPIV_FAIL_DOB", "30303", "ETPIV1")
    assert (record.initials, record.first_name, record.last_initial) == ("MAO", "mary", "O")
    assert record.agent_username == "demo.agent"
    stored = b"".join(path.read_bytes() for path in data_dir.glob("lineup.db*"))
    assert b"1967-03-21" not in stored and b"o'Neil" not in stored
    # The workflow carries the subject sealed: history shows neither the name nor the birth date.
    workflow_id = f"nlad-{response.headers['x-request-id']}"
    history = (await stack.env.client.get_workflow_handle(workflow_id).fetch_history()).to_json()
    assert "1967-03-21" not in history and "o'Neil" not in history
    assert "check_and_record" in history and "record_check" not in history  # one activity asks and records


async def test_tpiv_listing_lists_the_zips_identity_failures_newest_first(stack):
    for overrides in (
        {"ssn": "1111", "first_name": "Mary", "last_name": "Jones", "enrollment_id": "EMARY1"},
        {"ssn": "5555", "first_name": "Dup", "last_name": "Licate"},  # not an identity failure
        {"ssn": "1234", "first_name": "Fine", "last_name": "Person"},
        {"ssn": "2222", "first_name": "Other", "last_name": "Zip", "zip_code": "10001"},
        {"ssn": "3333", "first_name": "Ann", "last_name": "lee"},
    ):
        assert (await stack.call("/nlad", check(**{"zip_code": "30301", **overrides})))["msg_code"] == "RESTAPI000"
    listing = await stack.call("/nlad", body("tpiv_listing", zip_code="30301"))
    assert (listing["msg_code"], listing["msg"]) == ("RESTAPI000", "Success")
    records = listing["data"]["records"]
    assert [(r["enrollment_id"], r["failure_code"], r["first_name"], r["last_initial"]) for r in records] == [
        ("", "TPIV_FAIL_DOB", "Ann", "L"),
        ("EMARY1", "TPIV_FAIL_IDENTITY_NOT_FOUND", "Mary", "J"),
    ]
    assert all(date.fromisoformat(r["checked_at"][:10]) == date.today() for r in records)
    assert listing["data"]["zip_code"] == "30301"
    longer = await stack.call("/nlad", body("tpiv_listing", zip_code="30301123"))
    assert longer["data"]["records"] == records  # checks carry 5-digit ZIPs: a longer ZIP matches on them
    other_vendor = await stack.call("/nlad", body("tpiv_listing", agent_id="other.agent"), vendor="OTHER")
    assert other_vendor["data"] == {"zip_code": "30301", "records": []}


async def test_tpiv_listing_of_a_zip_without_failures_is_empty(api):
    listing = await api.call("/nlad", body("tpiv_listing", zip_code="99501"))
    assert (listing["msg_code"], listing["data"]) == ("RESTAPI000", {"zip_code": "99501", "records": []})


@pytest.mark.parametrize(
    ("good", "bad"), [("30301", "3030"), ("303011", "303011234"), ("30301123", "3030a"), ("3030112", " ")]
)
async def test_tpiv_listing_zip_code_rule(api, good, bad):
    assert (await api.call("/nlad", body("tpiv_listing", zip_code=good)))["msg_code"] == "RESTAPI000"
    error = "Please enter Zip code" if not bad.strip() else "Zip code must be 5 to 8 digits"
    assert refusal(await api.call("/nlad", body("tpiv_listing", zip_code=bad))) == (
        "RESTAPI110",
        "Error occurred",
        [error],
    )


@pytest.mark.parametrize("source", [None, "", "IVR", "CSR", "TABLET"])
async def test_tpiv_listing_source_is_optional_and_may_be_ivr_or_csr(api, source):
    assert (await api.call("/nlad", body("tpiv_listing", source=source)))["msg_code"] == "RESTAPI000"


async def test_tpiv_listing_refuses_a_source_not_allowed(api):
    envelope = await api.call("/nlad", body("tpiv_listing", source="FAX"))
    assert refusal(envelope) == ("RESTAPI103", "Source Not Allowed", ["Source Not Allowed"])
