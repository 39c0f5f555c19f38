"""The account PIN (decisions.md, "Account PIN"): stored encrypted, never in a workflow's history, never
logged; a line made before every customer had one gets one when an answer first needs it, and keeps it."""

from __future__ import annotations

import json
import logging

from sqlmodel import select

from models.enrollment.lines import Line
from tests.support.builders import body, create, line
from workflows.enrollment import enrollment_workflow_id, line_workflow_id

PIN = "7391"


async def test_the_pin_is_sealed_at_rest_and_kept_out_of_histories_and_logs(shared_stack, caplog):
    enrollment_id = await shared_stack.new_enrollment_id()
    with caplog.at_level(logging.DEBUG):
        created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id, pin=PIN)))
        assert created["data"][0]["data"]["pin"] == PIN, created
    assert PIN not in caplog.text
    async with shared_stack.db.transaction() as session:
        stored = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
    assert stored.pin is not None and PIN not in stored.pin and PIN not in stored.pii
    client = shared_stack.env.client
    for workflow_id in (enrollment_workflow_id(enrollment_id, [enrollment_id]), line_workflow_id(enrollment_id)):
        history = json.dumps((await client.get_workflow_handle(workflow_id).fetch_history()).to_json_dict())
        assert enrollment_id in history and PIN not in history, workflow_id


async def test_a_line_without_a_pin_gets_one_once(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id)))
    assert created["msg_code"] == "RESTAPI000", created
    async with shared_stack.db.transaction() as session:  # as a line made before PINs were
        stored = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
        stored.pin = None
        session.add(stored)
    first = await shared_stack.call("/customer", body("customer_info", enrollment_id=enrollment_id))
    pin = first["data"][0]["pin"]
    assert len(pin) == 4 and pin.isdigit()
    again = await shared_stack.call("/customer", body("customer_info", enrollment_id=enrollment_id))
    assert again["data"][0]["pin"] == pin
    repeated = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id)))
    assert repeated["data"][0]["data"]["pin"] == pin
