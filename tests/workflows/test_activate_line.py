"""activate_line: a line created with activation_later=Y is activated end to end (API → the line's workflow
update → carrier sandbox); any other state is refused by the update's validator before it reaches history."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowUpdateFailedError

from models.messages.enrollment import Activation
from models.tables.enrollment import Line
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import waiting_line
from workflows.enrollment.line import LineWorkflow
from workflows.search_attributes import LINE_STATUS


async def line_status(stack: Any, enrollment_id: str) -> str | None:
    described = await stack.env.client.get_workflow_handle(f"line-{enrollment_id}").describe()
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


async def test_activate_line_refuses_a_line_that_is_not_waiting(stack):
    enrollment_id = await waiting_line(stack)
    first = await stack.call("/customer", body("activate_line", enrollment_id=enrollment_id))
    assert first["msg_code"] == "RESTAPI000"
    again = await stack.call("/customer", body("activate_line", enrollment_id=enrollment_id))
    assert (again["msg_code"], again["errors"]) == ("RESTAPI110", ["Line is not waiting for activation (ACTIVE)"])


async def test_the_validator_refuses_before_anything_reaches_history(stack):
    """A port-in whose old carrier never answers (number ending 96) keeps its line's workflow running in
    PORT_PENDING: an activation sent to it straight is refused by the validator and leaves no event."""
    parent = await stack.new_enrollment_id()
    pending = line(parent, **{**PORT_FIELDS, "port_number": "4045551296"})
    assert (await stack.call("/customer", create(parent, pending)))["msg_code"] == "RESTAPI000"
    handle = stack.env.client.get_workflow_handle_for(LineWorkflow.run, f"line-{parent}")
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await handle.execute_update(LineWorkflow.activate, Activation(1.0))
    assert "Line is not waiting for activation (PORT_PENDING)" in str(refused.value.cause)
    updates = [event async for event in handle.fetch_history_events() if "UPDATE" in EventType.Name(event.event_type)]
    assert updates == []
    answer = await stack.call("/customer", body("activate_line", enrollment_id=parent))
    assert answer["errors"] == ["Line is not waiting for activation (PORT_PENDING)"]


async def test_activate_line_of_another_vendor_is_refused_as_unknown(stack):
    enrollment_id = await waiting_line(stack)
    answer = await stack.call(
        "/customer", body("activate_line", enrollment_id=enrollment_id, agent_id="other.agent"), vendor="OTHER"
    )
    assert answer["errors"] == ["No customer found against this enrolment ID"]
    assert await line_status(stack, enrollment_id) == "WAITING_ACTIVATION"
