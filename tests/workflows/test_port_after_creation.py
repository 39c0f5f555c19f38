"""Port-in after creation (decisions.md, "Working with the original service's channels"): a line created as
NEWACTIVATION with activation_later=Y is ported in with create_portin_v2… and followed to COMPLETED by its port's
workflow; an ACTIVE line keeps its number until its port completes, then changes number; against the dev server
and the carrier sandbox; get_list, submit_portin, validate_portin on /inventory and
new_number_activation_with_zip_code around it; another vendor's ids refused by each."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
import pytest
from sqlmodel import select

from models.auth import Vendor
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import OTHER, event_types, new_number, stored_line, until_status, vendor_waiting_line
from tests.support.waiting import eventually
from tests.support.webhooks import received, register, verified
from workflows.enrollment import ACTIVATION_TYPE, LINE_STATUS, MDN

FAST_POLLS = {"port_poll_seconds": 0.5}
CREATE_PORTIN = "create_portin_v2_when_create_customer_was_called_without_portin_tag"
PORT_ORDER = {name: value for name, value in PORT_FIELDS.items() if name != "activation_type"}


def port_in(enrollment_id: str, number: str, **overrides: Any) -> dict[str, Any]:
    return body(CREATE_PORTIN, enrollment_id=enrollment_id, **{**PORT_ORDER, "port_number": number, **overrides})


# The original's documented body (decisions.md): its own names, no SSN, the line named by its SIM alone.
ORIGINAL_ORDER = {
    "first_name": "Pat", "last_name": "Smith", "account_number": "ACC12345", "password_pin": "4321",
    "zip_code": "30301", "state": "GA", "city": "Atlanta", "address_one": "9 Elm St", "address_two": "",
}  # fmt: skip


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
@pytest.mark.parametrize("named_by", ["enrollment_id", "sim"])
async def test_the_originals_port_body_ports_a_waiting_line(stack, named_by):
    """Without `current_carrier`, the carrier is asked for it (a number ending 3 is with TMB in the sandbox)."""
    enrollment_id, sim = await vendor_waiting_line(stack)
    number = new_number("3")
    line_named = {"enrollment_id": enrollment_id} if named_by == "enrollment_id" else {"sim": sim}
    request = body(CREATE_PORTIN, **line_named, **ORIGINAL_ORDER, port_number=number, imei="352099081234508")
    theirs = await stack.call("/port", {**request, **OTHER}, vendor="OTHER")  # names nothing of theirs
    assert theirs["errors"] == ["No customer found against this enrolment ID"], theirs
    answer = await stack.call("/port", request)
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", "Port-in submitted"), answer
    assert answer["data"]["REFRENCENO"] == f"PORT_CREATE_{enrollment_id}"
    listed = await stack.call("/port", body("get_list", enroll_id=enrollment_id))
    [record] = listed["data"]["records"]
    assert (record["number_to_port"], record["carrier"], record["first_name"]) == (number, "TMB", "Pat")
    assert (record["address_one"], record["zip_code"], record["account_number"]) == ("9 Elm St", "30301", "2345")


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_a_line_waiting_for_activation_is_ported_in_and_followed_to_completed(stack):
    enrollment_id, sim = await vendor_waiting_line(stack)
    number = new_number()
    answer = await stack.call("/port", port_in(enrollment_id, number))
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", "Port-in submitted"), answer
    data = answer["data"]
    assert (data["MDN"], data["REFRENCENO"]) == (number, f"PORT_CREATE_{enrollment_id}")
    assert data["RESULT"]["portRequestNumber"] and data["RESULT"]["accountId"]
    query = body("query_portin", enroll_id=enrollment_id, esn=sim, mdn=number, carrier="ATT")
    deadline = asyncio.get_running_loop().time() + 40
    while (status := (await stack.call("/port", query))["data"]["records"][0]["portin_status"]) != "COMPLETED":
        assert asyncio.get_running_loop().time() < deadline, status
        await asyncio.sleep(0.3)
    done = await until_status(stack, enrollment_id, "ACTIVE")
    assert (done.mdn, done.activation_type) == (number, "PORTIN")
    # The Temporal UI finds its port as a PORTIN line that is ACTIVE on the ported number.
    port = await stack.env.client.get_workflow_handle(f"port-{enrollment_id}").describe()
    attributes = port.typed_search_attributes
    assert port.workflow_type == "PortInWorkflow"
    assert (attributes.get(ACTIVATION_TYPE), attributes.get(LINE_STATUS), attributes.get(MDN)) == (
        "PORTIN",
        "ACTIVE",
        number,
    )
    listed = await stack.call("/port", body("get_list", enroll_id=enrollment_id))
    [record] = listed["data"]["records"]
    assert (record["portin_status"], record["number_to_port"], record["account_number"]) == (
        "COMPLETED",
        number,
        "2345",
    )
    again = await stack.call("/port", port_in(enrollment_id, new_number()))
    assert again["errors"] == ["Line is already porting a number (ACTIVE)"]  # a ported line ports no more


async def test_a_line_already_porting_is_refused_a_second_port(stack):
    parent = await stack.new_enrollment_id()
    pending = line(parent, **{**PORT_FIELDS, "port_number": new_number("96")})
    assert (await stack.call("/customer", create(parent, pending)))["msg_code"] == "RESTAPI000"
    answer = await stack.call("/port", port_in(parent, new_number()))
    assert answer["errors"] == ["Line is already porting a number (PORT_PENDING)"]


async def test_a_port_the_carrier_refuses_is_refused_and_the_line_is_port_rejected(stack):
    enrollment_id, _ = await vendor_waiting_line(stack)
    answer = await stack.call("/port", port_in(enrollment_id, new_number("98")))
    assert answer["msg_code"] == "RESTAPI110" and "not eligible" in answer["errors"][0].lower(), answer
    assert (await stored_line(stack, enrollment_id)).status == "PORT_REJECTED"


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_an_active_line_keeps_its_number_until_its_port_completes_then_takes_the_ported_one(stack):
    """decisions.md: create as NEWACTIVATION, then offer the customer a port. The line stays ACTIVE on its first
    number while the port runs; then its MDN is the ported number, the first is released at the carrier, and
    line.number_changed reaches the vendor's webhook. The port asked in the original's documented body."""
    endpoint = await register(stack, events="line.number_changed")
    enrollment_id, _ = await vendor_waiting_line(stack)
    activated = await stack.call("/customer", body("activate_line", enrollment_id=enrollment_id))
    first = activated["data"][0]["data"]["mdn"]
    number = new_number()
    request = body(CREATE_PORTIN, enrollment_id=enrollment_id, **ORIGINAL_ORDER, port_number=number)
    answer = await stack.call("/port", {**request, "current_carrier": "TMB"})
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", "Port-in submitted"), answer
    meanwhile = await stored_line(stack, enrollment_id)
    assert (meanwhile.status, meanwhile.mdn) == ("ACTIVE", first)  # still its first number
    done = await until_status(stack, enrollment_id, "ACTIVE", mdn=number)
    assert (done.mdn, done.released_mdn) == (number, first)
    inquiry = await stack.call("/customer", body("line_inquiry", enrollment_id=enrollment_id))
    assert inquiry["data"]["MDN"] == number, inquiry
    async with httpx.AsyncClient(base_url=stack.sandbox) as sandbox:
        lines = (await sandbox.get("/sandbox/carrier/lines", params={"enrollment_id": enrollment_id})).json()["lines"]
    assert {row["mdn"]: row["status"] for row in lines} == {first: "INACTIVE", number: "ACTIVE"}
    assert "line.number_changed" in await event_types(stack, enrollment_id)
    [delivered] = await eventually(lambda: received(stack, {enrollment_id}), what="line.number_changed delivered")
    change = json.loads(delivered["body"])
    assert verified(delivered, endpoint.secret) and change["type"] == "line.number_changed"
    assert change["data"]["mdn"] == number, change


async def test_another_vendors_ids_are_refused_by_every_new_action(stack):
    theirs, _ = await vendor_waiting_line(stack, vendor="OTHER")
    ported = await stack.call("/port", port_in(theirs, new_number()))
    assert ported["errors"] == ["No customer found against this enrolment ID"]
    listed = await stack.call("/port", body("get_list", enroll_id=theirs, get_child_list="Y"))
    assert listed["errors"] == ["No Record Found"]
    corrected = await stack.call(
        "/port", body("submit_portin", enrollment_id=theirs, portin_enrollment_id=theirs, password_pin="1234")
    )
    assert corrected["errors"] == ["No port-in order found for this enrollment id"]
    activated = await stack.call(
        "/inventory", body("new_number_activation_with_zip_code", enrollment_id=theirs, zip_code="30301")
    )
    assert activated["errors"] == ["No customer found against this enrolment ID"]
    assert (await stored_line(stack, theirs)).status == "WAITING_ACTIVATION"


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_get_list_and_submit_portin_correct_a_port_that_needs_resolution(stack):
    enrollment_id, _ = await vendor_waiting_line(stack)
    number = new_number()
    answer = await stack.call("/port", port_in(enrollment_id, number, port_account_password="0000"))
    assert answer["msg_code"] == "RESTAPI000", answer
    listed = await stack.call("/port", body("get_list", enroll_id=enrollment_id, get_child_list="Y"))
    [record] = listed["data"]["records"]
    assert (record["enroll_id"], record["carrier"], record["portin_company"]) == (
        enrollment_id,
        "ATT",
        "AT&T Mobility",
    )
    deadline = asyncio.get_running_loop().time() + 20
    while record["portin_status"] != "RESOLUTION_REQUIRED":
        assert asyncio.get_running_loop().time() < deadline, record
        await asyncio.sleep(0.3)
        record = (await stack.call("/port", body("get_list", enroll_id=enrollment_id)))["data"]["records"][0]
    corrected = await stack.call(
        "/port",
        body("submit_portin", enrollment_id=enrollment_id, portin_enrollment_id=enrollment_id, password_pin="1234"),
    )
    assert corrected["msg_code"] == "RESTAPI000", corrected
    assert corrected["data"] == {"enroll_id": enrollment_id, "portin_status": "SUBMITTED"}
    done = await until_status(stack, enrollment_id, "ACTIVE")
    assert done.mdn == number


async def test_validate_portin_on_inventory_takes_the_number_as_mdn(stack):
    answer = await stack.call("/inventory", body("validate_portin", mdn="4045551234"))
    assert (answer["msg_code"], answer["data"]["current_carrier"]) == ("RESTAPI000", "TMB"), answer
    refused = await stack.call("/inventory", body("validate_portin", mdn="1045551234"))
    # The message names the field as the channel sent it.
    assert refused["errors"] == ["MDN must be 10 digits; area code and exchange may not start with 0 or 1"]


async def test_new_number_activation_with_zip_code_activates_in_that_area(stack):
    enrollment_id, _ = await vendor_waiting_line(stack)
    replacement = new_iccid()
    answer = await stack.call(
        "/inventory",
        body("new_number_activation_with_zip_code", enrollment_id=enrollment_id, zip_code="90001", sim=replacement),
    )
    assert answer["msg_code"] == "RESTAPI000", answer
    [entry] = answer["data"]
    assert entry["msg"] == "Customer created and line activated"
    stored = await stored_line(stack, enrollment_id)
    assert (stored.status, stored.mdn, stored.iccid) == ("ACTIVE", entry["data"]["mdn"], replacement)
    assert stored.mdn is not None and stored.mdn.startswith("213")  # Los Angeles' area, not Atlanta's 404
    again = await stack.call(
        "/inventory", body("new_number_activation_with_zip_code", enrollment_id=enrollment_id, zip_code="90001")
    )  # asked again after checkout: the line's entry, its MDN, and nothing to the carrier (decisions.md)
    [entry], [first] = again["data"], answer["data"]
    assert (again["msg_code"], entry["msg"], entry["data"]) == ("RESTAPI000", "Line is already active", first["data"])
    assert (await stored_line(stack, enrollment_id)).mdn == stored.mdn


async def test_the_console_finds_a_port_added_after_creation_by_its_number(stack):
    enrollment_id, _ = await vendor_waiting_line(stack)
    number = new_number("96")  # the old carrier never answers: the port stays SUBMITTED
    assert (await stack.call("/port", port_in(enrollment_id, number)))["msg_code"] == "RESTAPI000"
    http = stack.http
    login = await http.get("/console/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', login.text)
    assert csrf is not None
    form = {"csrf": csrf[1], "username": "demo.support", "password": "agent-pass-1"}
    assert (await http.post("/console/login", data=form)).status_code in (200, 303)
    page = await http.get("/console/search", params={"q": number})
    assert page.status_code == 200
    assert enrollment_id in page.text and f"Port-in of {number}: SUBMITTED" in page.text
    assert "PORT_PENDING" in page.text and f"line-{enrollment_id}" in page.text  # its workflow in the Temporal UI


async def test_get_list_with_child_list_gives_the_ports_of_the_whole_account(stack):
    parent, child = await stack.new_enrollment_id(), await stack.new_enrollment_id()
    number = new_number("96")  # stays SUBMITTED
    holder = line(parent, activation_later="Y", phone_type="4G", uiccid=new_iccid())
    porting = line(child, **{**PORT_FIELDS, "port_number": number, "phone_type": "4G", "uiccid": new_iccid()})
    assert (await stack.call("/customer", create(parent, holder, porting)))["msg_code"] == "RESTAPI000"
    alone = await stack.call("/port", body("get_list", enroll_id=parent))
    assert alone["errors"] == ["No Record Found"]  # the holder itself ports nothing
    listed = await stack.call("/port", body("get_list", enroll_id=parent, get_child_list="Y"))
    [record] = listed["data"]["records"]
    assert (record["enroll_id"], record["number_to_port"]) == (child, number)
    # submit_portin finds the child's port through the parent (and says it needs no correction now).
    corrected = await stack.call(
        "/port", body("submit_portin", enrollment_id=parent, portin_enrollment_id=child, password_pin="1234")
    )
    assert corrected["errors"][0].startswith("The port-in is "), corrected
    assert corrected["errors"][0].endswith("corrections are accepted only when it is RESOLUTION_REQUIRED")


async def test_a_vendor_that_requires_payment_has_the_port_paid_first(stack):
    enrollment_id, _ = await vendor_waiting_line(stack)
    async with stack.db.transaction() as session:
        vendor = (await session.exec(select(Vendor).where(Vendor.code == "DEMO"))).one()
        vendor.require_payment = True
        session.add(vendor)
    try:
        refused = await stack.call("/port", port_in(enrollment_id, new_number("96")))
        assert refused["errors"] == ["No settled payment covers plan 102 of this line; make_payment first"]
        assert (await stored_line(stack, enrollment_id)).status == "WAITING_ACTIVATION"
        paid = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, plan_id="102"))
        assert paid["msg_code"] == "RESTAPI000", paid
        accepted = await stack.call("/port", port_in(enrollment_id, new_number("96")))
        assert accepted["msg_code"] == "RESTAPI000", accepted
    finally:
        async with stack.db.transaction() as session:
            vendor = (await session.exec(select(Vendor).where(Vendor.code == "DEMO"))).one()
            vendor.require_payment = False
            session.add(vendor)
