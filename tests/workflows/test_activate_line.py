"""activate_line: a line created with activation_later=Y is activated end to end (API → the line's workflow
update → carrier sandbox); any other state is refused by the update's validator before it reaches history."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select
from temporalio.api.enums.v1 import EventType
from temporalio.service import RPCError, RPCStatusCode

from models.enrollment.lines import Line
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import line_workflow, waiting_line
from workflows.enrollment import LINE_STATUS, line_workflow_id


async def line_status(stack: Any, enrollment_id: str) -> str | None:
    """The line's status as the Temporal UI shows it (its order starts its workflow a moment after answering)."""
    described = await line_workflow(stack, enrollment_id)
    status: str | None = described.typed_search_attributes.get(LINE_STATUS)
    return status


async def test_activate_line_activates_a_waiting_line_and_answers_its_mdn(stack):
    enrollment_id = await waiting_line(stack)
    assert await line_status(stack, enrollment_id) == "WAITING_ACTIVATION"
    answer = await stack.call("/customer", body("activate_line", enrollment_id=enrollment_id))
    assert answer["msg_code"] == "RESTAPI000", answer
    [entry] = answer["data"]
    assert entry["msg"] == "Customer created and line activated"
    assert entry["data"]["enrollment_id"] == enrollment_id and len(entry["data"]["mdn"]) == 10
    assert await line_status(stack, enrollment_id) == "ACTIVE"
    async with stack.db.transaction() as session:
        stored = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
    assert (stored.status, stored.mdn) == ("ACTIVE", entry["data"]["mdn"])


async def test_activate_line_with_a_new_sim_activates_that_sim(stack):
    enrollment_id = await waiting_line(stack, uiccid=new_iccid(), phone_type="4G")
    replacement = new_iccid()
    answer = await stack.call("/customer", body("activate_line", enrollment_id=enrollment_id, uiccid=replacement))
    assert answer["msg_code"] == "RESTAPI000", answer
    inquiry = await stack.call("/customer", body("line_inquiry", enrollment_id=enrollment_id))
    assert inquiry["data"]["LINE_INQ"]["SIM_NUMBER"] == replacement


async def updates_of(stack: Any, enrollment_id: str) -> int:
    """How many updates the line's workflow was sent: each activation asked of it is one."""
    await line_workflow(stack, enrollment_id)
    handle = stack.env.client.get_workflow_handle(f"line-{enrollment_id}")
    return len([e async for e in handle.fetch_history_events() if EventType.Name(e.event_type).endswith("ACCEPTED")])


async def test_activate_line_of_a_line_already_active_answers_its_entry_and_sends_nothing(stack):
    """decisions.md: the original's channels create, then activate; the line checkout activated answers
    RESTAPI000 with its entry and MDN, and neither its workflow nor the carrier is asked again. (Another SIM:
    tests/api/test_active_line_activation.py.)"""
    enrollment_id = await waiting_line(stack)
    first = await stack.call("/customer", body("activate_line", enrollment_id=enrollment_id))
    assert first["msg_code"] == "RESTAPI000"
    asked = await updates_of(stack, enrollment_id)
    again = await stack.call("/customer", body("activate_line", enrollment_id=enrollment_id))
    [entry] = again["data"]
    assert (again["msg_code"], entry["msg"], entry["data"]) == (
        "RESTAPI000",
        "Line is already active",
        first["data"][0]["data"],
    )
    assert await updates_of(stack, enrollment_id) == asked == 1


async def test_activate_line_after_checkout_activated_the_line(stack):
    parent = await stack.new_enrollment_id()
    created = await stack.call("/customer", create(parent, line(parent)))
    [entry] = created["data"]
    assert entry["data"]["mdn"] is not None, created
    answer = await stack.call("/customer", body("activate_line", enrollment_id=parent))
    assert (answer["msg_code"], answer["data"][0]["data"]["mdn"]) == ("RESTAPI000", entry["data"]["mdn"])
    # Answered from its row: its order activated it, so it has no workflow to ask (none was started for it).
    with pytest.raises(RPCError) as missing:
        await stack.env.client.get_workflow_handle(line_workflow_id(parent)).describe()
    assert missing.value.status == RPCStatusCode.NOT_FOUND


async def test_a_line_that_is_not_waiting_is_refused_and_its_port_goes_on(stack):
    """A port-in whose old carrier never answers (number ending 96) keeps its line PORT_PENDING: activate_line
    is refused, and the port's workflow (the line's in the Temporal UI) is not asked. (The line workflow's own
    validator refuses it before history too: tests/workflows/test_line_retry.py.)"""
    parent = await stack.new_enrollment_id()
    pending = line(parent, **{**PORT_FIELDS, "port_number": "4045551296"})
    assert (await stack.call("/customer", create(parent, pending)))["msg_code"] == "RESTAPI000"
    answer = await stack.call("/customer", body("activate_line", enrollment_id=parent))
    assert answer["errors"] == ["Line is not waiting for activation (PORT_PENDING)"]


async def test_activate_line_of_another_vendor_is_refused_as_unknown(stack):
    enrollment_id = await waiting_line(stack)
    answer = await stack.call(
        "/customer", body("activate_line", enrollment_id=enrollment_id, agent_id="other.agent"), vendor="OTHER"
    )
    assert answer["errors"] == ["No customer found against this enrolment ID"]
    assert await line_status(stack, enrollment_id) == "WAITING_ACTIVATION"
