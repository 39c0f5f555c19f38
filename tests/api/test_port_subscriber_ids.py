"""Port records that name their SIMs (decisions.md, `/port` get_list and submit_portin; issue 34, item 4): each
port order has its own number, `port_subscriber_id`, a JSON number that stays the same and names nothing of
another vendor; get_list gives the line's SIM as `new_esn` and the one the number had as `old_esn`; submit_portin
takes the number back (a JSON number or its digits) as well as the line's enrollment id. Over HTTP in the
original's body shapes, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import models.porting
from models.db import upgrade_async
from models.envelope import NO_PORT_ORDER
from models.porting import PORT_NUMBERS
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import OTHER, new_number, vendor_waiting_line
from tests.support.waiting import eventually

CREATE_PORTIN = "create_portin_v2_when_create_customer_was_called_without_portin_tag"
# The original's documented port body (decisions.md); a test adds `old_esn` where it gives one.
ORIGINAL_ORDER = {
    "first_name": "Pat", "last_name": "Smith", "account_number": "ACC12345", "password_pin": "4321",
    "zip_code": "30301", "state": "GA", "city": "Atlanta", "address_one": "9 Elm St", "current_carrier": "ATT",
}  # fmt: skip
PORT_REF_RULE = "Portin Enrollment Id must be a port_subscriber_id from get_list (a number) or the line's enrollment id"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def port_db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, sqlite_template_path: Path
) -> str:
    """The module's database on each engine (PostgreSQL's is the run's: each test issues its own ids)."""
    if request.param == "postgresql":
        url: str = request.getfixturevalue("postgres_url")
        return url
    path = tmp_path_factory.mktemp("port_ids") / "lineup.db"
    shutil.copyfile(sqlite_template_path, path)
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture(scope="module")
async def port_stack(
    port_db_url: str, tmp_path_factory: pytest.TempPathFactory, temporal_env: Any, sandbox_url: str
) -> AsyncIterator[Any]:
    """One stack per engine for the module (each test issues its own enrollment ids), polling ports fast."""
    from tests.support.stack import Stack

    data_dir = tmp_path_factory.mktemp("port_ids_data")
    with pytest.MonkeyPatch.context() as patch:  # as _no_env_leak does for a function-scoped stack
        for name in [name for name in os.environ if name.startswith("LINEUP_")]:
            patch.delenv(name)
        async with Stack.running(data_dir, port_db_url, temporal_env, sandbox_url, port_poll_seconds=0.5) as running:
            yield running


async def ported(stack: Any, enrollment_id: str, number: str, vendor: str = "DEMO", **fields: Any) -> None:
    """The original's port body for the line, accepted."""
    agent = {} if vendor == "DEMO" else OTHER
    order = {**ORIGINAL_ORDER, "port_number": number, **fields}
    request = body(CREATE_PORTIN, enrollment_id=enrollment_id, **order)
    answer = await stack.call("/port", {**request, **agent}, vendor=vendor)
    assert answer["msg_code"] == "RESTAPI000", answer


async def records(stack: Any, enroll_id: str, vendor: str = "DEMO", **fields: Any) -> list[dict[str, Any]]:
    agent = {} if vendor == "DEMO" else OTHER
    listed = await stack.call("/port", body("get_list", enroll_id=enroll_id, **agent, **fields), vendor=vendor)
    assert listed["msg_code"] == "RESTAPI000", listed
    found: list[dict[str, Any]] = listed["data"]["records"]
    return found


async def test_get_list_names_the_lines_sim_and_the_ports_number(port_stack):
    """A port made at creation: new_esn is the line's SIM, old_esn "" (none given), and port_subscriber_id a
    number, the same on every call."""
    enrollment_id, sim = await port_stack.new_enrollment_id(), new_iccid()
    porting = line(enrollment_id, **{**PORT_FIELDS, "port_number": new_number("96"), "phone_type": "4G", "uiccid": sim})
    assert (await port_stack.call("/customer", create(enrollment_id, porting)))["msg_code"] == "RESTAPI000"
    [record] = await records(port_stack, enrollment_id)
    number = record["port_subscriber_id"]
    assert type(number) is int and number in PORT_NUMBERS, record
    assert (record["enroll_id"], record["new_esn"], record["old_esn"]) == (enrollment_id, sim, "")
    [again] = await records(port_stack, enrollment_id, get_child_list="Y")
    assert again["port_subscriber_id"] == number


async def test_get_list_gives_the_old_esn_the_port_request_gave(port_stack):
    enrollment_id, sim = await vendor_waiting_line(port_stack)
    old_sim = new_iccid()
    await ported(port_stack, enrollment_id, new_number("96"), old_esn=old_sim)
    [record] = await records(port_stack, enrollment_id)
    assert (record["new_esn"], record["old_esn"]) == (sim, old_sim)


async def test_a_portin_line_at_creation_keeps_the_old_esn_it_gave(port_stack):
    enrollment_id, old_sim = await port_stack.new_enrollment_id(), new_iccid()
    fields = {**PORT_FIELDS, "port_number": new_number("96"), "old_esn": old_sim}
    bad = await port_stack.call("/customer", create(enrollment_id, line(enrollment_id, **{**fields, "old_esn": "12"})))
    assert bad["errors"] == ["Line 1: Old ESN must be a valid SIM, IMEI, MEID or ESN"], bad
    created = await port_stack.call("/customer", create(enrollment_id, line(enrollment_id, **fields)))
    assert created["msg_code"] == "RESTAPI000", created
    [record] = await records(port_stack, enrollment_id)
    assert record["old_esn"] == old_sim


async def test_two_port_orders_get_different_numbers(port_stack):
    parent, child = await port_stack.new_enrollment_id(), await port_stack.new_enrollment_id()
    lines = [
        line(eid, **{**PORT_FIELDS, "port_number": new_number("96"), "phone_type": "4G", "uiccid": new_iccid()})
        for eid in (parent, child)
    ]
    assert (await port_stack.call("/customer", create(parent, *lines)))["msg_code"] == "RESTAPI000"
    listed = await records(port_stack, parent, get_child_list="Y")
    assert sorted(record["enroll_id"] for record in listed) == sorted([parent, child])
    assert len({record["port_subscriber_id"] for record in listed}) == 2


@pytest.mark.parametrize("named_by", ["number", "digits", "enrollment_id"])
async def test_submit_portin_resubmits_the_port_its_number_names(port_stack, named_by):
    """The same answer whichever way the port is named: its number as get_list gives it, its digits as a string,
    or (as before) its line's enrollment id."""
    enrollment_id, _ = await vendor_waiting_line(port_stack)
    await ported(port_stack, enrollment_id, new_number(), password_pin="0000")  # the old carrier wants the PIN
    [record] = await eventually(
        lambda: records(port_stack, enrollment_id),
        lambda found: found[0]["portin_status"] == "RESOLUTION_REQUIRED",
        what="the port needing resolution",
    )
    number = record["port_subscriber_id"]
    named = {"number": number, "digits": str(number), "enrollment_id": enrollment_id}[named_by]
    request = body("submit_portin", enrollment_id=enrollment_id, portin_enrollment_id=named, password_pin="1234")
    corrected = await port_stack.call("/port", request)
    assert (corrected["msg_code"], corrected["data"]) == (
        "RESTAPI000",
        {"enroll_id": enrollment_id, "portin_status": "SUBMITTED"},
    ), corrected


async def test_submit_portin_finds_a_childs_port_by_its_number_through_the_account(port_stack):
    """Named from the account holder's line, as the mobile channels do (the port needs no correction now)."""
    parent, child = await port_stack.new_enrollment_id(), await port_stack.new_enrollment_id()
    holder = line(parent, activation_later="Y", phone_type="4G", uiccid=new_iccid())
    porting = line(child, **{**PORT_FIELDS, "port_number": new_number("96"), "phone_type": "4G", "uiccid": new_iccid()})
    assert (await port_stack.call("/customer", create(parent, holder, porting)))["msg_code"] == "RESTAPI000"
    [record] = await records(port_stack, parent, get_child_list="Y")
    request = body(
        "submit_portin", enrollment_id=parent, portin_enrollment_id=record["port_subscriber_id"], password_pin="1234"
    )
    refused = await port_stack.call("/port", request)
    assert refused["errors"] == [
        "The port-in is SUBMITTED; corrections are accepted only when it is RESOLUTION_REQUIRED"
    ], refused


async def test_another_vendors_port_number_names_nothing(port_stack):
    theirs, _ = await vendor_waiting_line(port_stack, vendor="OTHER")
    await ported(port_stack, theirs, new_number("96"), vendor="OTHER")
    [their_record] = await records(port_stack, theirs, vendor="OTHER")
    ours, _ = await vendor_waiting_line(port_stack)
    await ported(port_stack, ours, new_number("96"))
    for account in (ours, theirs):
        request = body(
            "submit_portin",
            enrollment_id=account,
            portin_enrollment_id=their_record["port_subscriber_id"],
            password_pin="1234",
        )
        answer = await port_stack.call("/port", request)
        assert (answer["msg_code"], answer["errors"]) == ("RESTAPI110", [NO_PORT_ORDER]), answer
        assert theirs not in json.dumps(answer)


async def test_a_port_number_another_order_holds_is_drawn_again(port_stack, monkeypatch):
    """Numbers are random: a draw that meets another order's number is drawn again, in the same request."""
    first, _ = await vendor_waiting_line(port_stack)
    await ported(port_stack, first, new_number("96"))
    [taken] = await records(port_stack, first)
    fresh = secrets.randbelow(len(PORT_NUMBERS))
    draws = iter([PORT_NUMBERS.index(taken["port_subscriber_id"]), fresh])  # the first draw meets `first`'s

    class Drawn:
        @staticmethod
        def randbelow(_: int) -> int:
            return next(draws)

    monkeypatch.setattr(models.porting, "secrets", Drawn)
    second, _ = await vendor_waiting_line(port_stack)
    await ported(port_stack, second, new_number("96"))
    [record] = await records(port_stack, second)
    assert record["port_subscriber_id"] == PORT_NUMBERS.start + fresh


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("12ab!", PORT_REF_RULE),
        (-4829137465, PORT_REF_RULE),
        (4829137465.5, PORT_REF_RULE),
        (True, "Portin Enrollment Id must be text"),  # true/false is no number (as for every id)
        ("", "Please enter Portin Enrollment Id"),
    ],
)
async def test_submit_portin_portin_enrollment_id_rule(api, value, error):
    """A good value of each form passes validation (nothing of that name is what is refused)."""
    valid = {"enrollment_id": "EUNKNOWN1", "password_pin": "1234"}
    for good in (4829137465, "4829137465", "EUNKNOWN1"):
        answer = await api.call("/port", body("submit_portin", **valid, portin_enrollment_id=good))
        assert answer["errors"] == [NO_PORT_ORDER], answer
    refused = await api.call("/port", body("submit_portin", **valid, portin_enrollment_id=value))
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", [error]), refused


async def test_create_portin_old_esn_rule(api):
    order = {**ORIGINAL_ORDER, "enrollment_id": "EUNKNOWN1", "port_number": "4045551234"}
    unknown = await api.call("/port", body(CREATE_PORTIN, **order, old_esn=new_iccid()))
    assert unknown["errors"] == ["No customer found against this enrolment ID"], unknown
    refused = await api.call("/port", body(CREATE_PORTIN, **order, old_esn="8901"))
    assert refused["errors"] == ["Old ESN must be a valid SIM, IMEI, MEID or ESN"], refused


async def test_submit_portin_documents_a_number_or_a_string_of_digits(api):
    document = (await api.http.get("/openapi.json")).json()
    field = document["components"]["schemas"]["SubmitPortin"]["properties"]["portin_enrollment_id"]
    assert [choice["type"] for choice in field["anyOf"]] == ["integer", "string"]
    text = re.compile(field["anyOf"][1]["pattern"])  # a number's digits, or the line's enrollment id (the old form)
    assert text.match("4829137465") and text.match("EA7KQ2M4XZP9R3TBWVC")
    assert not text.match("12ab!") and not text.match("")


# Migration 0021 numbers the port orders already there: each its own number, within the range new ones take.
async def test_0021_numbers_the_port_orders_already_there(tmp_path):
    path = tmp_path / "old.db"
    url = f"sqlite+aiosqlite:///{path}"
    await upgrade_async(url, "0020")  # the revision before this one
    with sqlite3.connect(path) as db:  # its lines need not be there: sqlite3 leaves foreign keys unchecked
        db.executemany(
            "INSERT INTO port_in (enrollment_id, port_number, current_carrier, secrets, status)"
            " VALUES (?, ?, 'ATT', 'sealed', 'REJECTED')",
            [(f"EOLD{index}", f"404555000{index}") for index in range(3)],
        )
    await upgrade_async(url)
    with sqlite3.connect(path) as db:
        numbers = [number for (number,) in db.execute("SELECT subscriber_id FROM port_in")]
        olds = {old for (old,) in db.execute("SELECT old_esn FROM port_in")}
    assert len(set(numbers)) == 3 and all(number in PORT_NUMBERS for number in numbers), numbers
    assert olds == {None}
