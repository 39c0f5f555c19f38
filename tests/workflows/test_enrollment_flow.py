"""The channel's flow against a real worker on the Temporal dev server and the sandbox over HTTP."""

from __future__ import annotations

import asyncio
import gc
import html
import logging
import sqlite3
from urllib.parse import urlencode

import pytest
from sqlmodel import func, select
from temporalio.service import RPCError, RPCStatusCode

from models.enrollment.lines import Enrollment, Line
from models.payment import PaymentRecord, SavedCard
from tests.support.builders import body, create, line
from tests.support.console import sign_in
from tests.support.lines import line_workflow
from workflows.enrollment import (
    ENROLLMENT_IDS,
    LINE_STATUSES,
    MDNS,
    enrollment_workflow_id,
    line_query,
    line_workflow_id,
)


async def test_full_flow_availability_plans_payment_customer_inquiry(stack):
    parent = await stack.new_enrollment_id()
    second = await stack.new_enrollment_id()
    plans = await stack.call("/plan", body("plan_list"))
    assert plans["msg_code"] == "RESTAPI000" and len(plans["data"]) >= 3
    paid = await stack.call("/payment", body("make_payment", enrollment_id=parent, plan_id=plans["data"][1]["plan_id"]))
    assert paid["msg_code"] == "RESTAPI000", paid
    invoice = paid["data"]["invoice_number"]
    assert paid["data"]["calc_id"] and paid["data"]["transaction_id"] and paid["data"]["card_id"]

    created = await stack.call("/customer", create(parent, line(parent), line(second), invoice_number=invoice))
    assert created["msg_code"] == "RESTAPI000", created
    results = {entry["data"]["enrollment_id"]: entry for entry in created["data"]}
    assert set(results) == {parent, second}
    for entry in results.values():
        data = entry["data"]
        assert entry["msg_code"] == "RESTAPI000"
        assert data["mdn"] and len(data["mdn"]) == 10 and data["mdn"].startswith("404")  # GA area code
        assert data["msid"] and data["msl"] and data["invoice_number"] == invoice
        assert data["cust_id"] == results[parent]["data"]["customer_id"]
    assert results[parent]["data"]["mdn"] != results[second]["data"]["mdn"]

    inquiry = await stack.call("/customer", body("line_inquiry", enrollment_id=second))
    assert inquiry["msg_code"] == "RESTAPI000", inquiry
    assert inquiry["data"]["MDN"] == results[second]["data"]["mdn"]
    assert inquiry["data"]["LINE_INQ"]["STATUSCODE"] == "00"
    wholesale = inquiry["data"]["LINE_INQ"]["CARRIER_RESPONSE"]["WHOLESALEAPI"][0]
    assert wholesale["WHOLESALEORDERRESPONSE"][0]["STATUSCODE"] == [{"VALUE": "00"}]
    assert inquiry["data"]["TALK_BALANCE"] > 0


async def test_repeated_request_returns_the_first_result_and_creates_nothing_new(stack):
    parent = await stack.new_enrollment_id()
    request = create(parent, line(parent))
    first = await stack.call("/customer", request)
    second = await stack.call("/customer", request)
    assert first["data"] == second["data"]
    async with stack.db.transaction() as session:
        assert (await session.exec(select(func.count()).select_from(Line))).one() == 1


async def test_a_request_repeated_after_its_enrollment_ended_answers_from_the_records_and_logs_no_error(stack, caplog):
    parent = await stack.new_enrollment_id()
    request = create(parent, line(parent))
    first = await stack.call("/customer", request)
    workflow_id = enrollment_workflow_id(parent, [parent])
    await stack.env.client.get_workflow_handle(workflow_id).result()  # ended: a new start is refused
    gc.collect()  # what earlier tests in this process left for the collector is not this request's
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        again = await stack.call("/customer", request)
        gc.collect()  # an unread future's error is logged when the future is collected
    assert again["data"] == first["data"]
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


async def test_unissued_or_used_enrollment_ids_are_refused_and_nothing_is_created(stack):
    parent = await stack.new_enrollment_id()
    refused = await stack.call("/customer", create(parent, line(parent), line("EUNKNOWN123")))
    assert refused["msg_code"] == "RESTAPI110"
    assert refused["errors"] == ["Invalid enrollment id EUNKNOWN123. Please provide a valid enrollment ID."]
    async with stack.db.transaction() as session:
        assert (await session.exec(select(func.count()).select_from(Line))).one() == 0
        assert (await session.get(Enrollment, parent)).claimed_by is None

    assert (await stack.call("/customer", create(parent, line(parent))))["msg_code"] == "RESTAPI000"
    other = await stack.new_enrollment_id()
    reused = await stack.call("/customer", create(other, line(other), line(parent)))
    assert reused["errors"] == [f"Enrollment id {parent} is already used by another request"]


async def test_parent_must_be_an_existing_account_or_a_line_of_the_request(stack):
    first, second = await stack.new_enrollment_id(), await stack.new_enrollment_id()
    refused = await stack.call("/customer", create(first, line(second)))
    assert refused["errors"] == [
        f"Parent enrollment id {first} is neither an existing account nor a line of this request"
    ]
    assert (await stack.call("/customer", create(first, line(first))))["msg_code"] == "RESTAPI000"
    added = await stack.call("/customer", create(first, line(second)))
    assert added["msg_code"] == "RESTAPI000", added
    assert added["data"][0]["data"]["cust_id"] != added["data"][0]["data"]["customer_id"]


async def test_portin_line_submits_the_port_and_waits_port_pending(stack):
    from tests.support.builders import PORT_FIELDS

    parent = await stack.new_enrollment_id()
    created = await stack.call("/customer", create(parent, line(parent, **PORT_FIELDS)))
    entry = created["data"][0]
    assert entry["msg"] == "Customer created; port-in submitted and pending", created
    async with stack.db.transaction() as session:
        stored = await session.get(Line, parent)
    assert stored.status == "PORT_PENDING"


async def test_make_payment_stores_no_cvv_and_no_full_card_number(stack, data_dir):
    enrollment_id = await stack.new_enrollment_id()
    paid = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, cvv="987"))
    assert paid["msg_code"] == "RESTAPI000"
    async with stack.db.transaction() as session:
        card = (await session.exec(select(SavedCard))).one()
        assert (card.brand, card.last4) == ("Visa", "1111")
        assert (await session.exec(select(PaymentRecord))).one().card_id == card.id
    raw = (data_dir / "lineup.db").read_bytes()
    assert b"4111111111111111" not in raw
    # Three digits turn up by chance in a database file (timestamps, ids), so the CVV is looked for as a value.
    with sqlite3.connect(data_dir / "lineup.db") as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        cells = [cell for table in tables for row in db.execute(f'SELECT * FROM "{table}"') for cell in row]
    assert not [cell for cell in cells if str(cell) == "987" or '"987"' in str(cell)]


async def test_make_payment_declined_and_repeated(stack):
    enrollment_id = await stack.new_enrollment_id()
    declined = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, cvv="000"))
    assert declined["errors"] == ["Payment declined: CVV mismatch"]
    request = body("make_payment", enrollment_id=enrollment_id, external_transaction_id="PAY1A")
    first, again = await stack.call("/payment", request), await stack.call("/payment", request)
    assert first["data"] == again["data"]


async def test_line_inquiry_of_a_line_not_held_passes_the_909_through(stack):
    parent = await stack.new_enrollment_id()
    await stack.call("/customer", create(parent, line(parent, activation_later="Y")))
    inquiry = await stack.call("/customer", body("line_inquiry", enrollment_id=parent))
    assert inquiry["msg_code"] == "RESTAPI000"
    assert inquiry["data"]["LINE_INQ"]["STATUSCODE"] == "909"
    assert "does not belong" in inquiry["data"]["LINE_INQ"]["DESCRIPTION"]


async def test_lines_with_work_left_run_in_parallel_workflows_of_their_own(stack):
    ids = [await stack.new_enrollment_id() for _ in range(4)]
    created = await stack.call("/customer", create(ids[0], *(line(i, activation_later="Y") for i in ids)))
    assert created["msg_code"] == "RESTAPI000"
    descriptions = await asyncio.gather(*(line_workflow(stack, i) for i in ids))
    assert all(d.parent_id and d.parent_id.startswith(f"enrollment-{ids[0]}") for d in descriptions)


async def test_lines_activated_at_once_are_done_in_their_order_and_found_by_its_search_attributes(stack):
    ids = [await stack.new_enrollment_id() for _ in range(3)]
    created = await stack.call("/customer", create(ids[0], *(line(i) for i in ids)))
    assert [entry["data"]["mdn"] is not None for entry in created["data"]] == [True] * 3, created
    order = stack.env.client.get_workflow_handle(enrollment_workflow_id(ids[0], ids))
    await order.result()
    client = stack.env.client
    for enrollment_id in ids:  # no workflow of its own: its row is its record
        with pytest.raises(RPCError) as missing:
            await client.get_workflow_handle(line_workflow_id(enrollment_id)).describe()
        assert missing.value.status == RPCStatusCode.NOT_FOUND
    attributes = (await order.describe()).typed_search_attributes
    assert attributes.get(ENROLLMENT_IDS) == ids
    assert attributes.get(LINE_STATUSES) == ["ACTIVE", *(f"{i}:ACTIVE" for i in ids)]
    mdns = [entry["data"]["mdn"] for entry in created["data"]]
    assert attributes.get(MDNS) == mdns
    # As operations staff find a line in the Temporal UI.
    queries = (
        f'EnrollmentIds = "{ids[1]}"',
        f'LineStatuses = "{ids[2]}:ACTIVE"',
        f'Mdns = "{mdns[0]}"',
        line_query(ids[0]),
    )
    for query in queries:
        assert [listed.id async for listed in client.list_workflows(query)] == [order.id], query
    # The console links such a line to that list in the Temporal UI, not to a line-<id> that does not exist.
    assert (await sign_in(stack.http)).status_code in (200, 303)
    page = await stack.http.get("/console/search", params={"q": ids[1]})
    listed = f"/namespaces/default/workflows?{urlencode({'query': line_query(ids[1])})}"
    assert html.escape(listed) in page.text and f"workflows/line-{ids[1]}" not in page.text
