"""A number an ACTIVE line of the vendor holds cannot be ported into another line (issue 19, finding 15):
refused at intake and by create_portin_v2…; and when a port completes, the line that held the number (here
another vendor's customer, whom the vendor cannot see) is marked PORTED_OUT, so one number has one active line."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import stored_line, until_status

FAST_POLLS = {"port_poll_seconds": 0.5}
CREATE_PORTIN = "create_portin_v2_when_create_customer_was_called_without_portin_tag"
OTHER = {"agent_id": "other.agent"}


async def active_line(stack: Any, vendor: str = "DEMO") -> tuple[str, str]:
    """A line activated with a new number: its enrollment id and MDN."""
    agent = {} if vendor == "DEMO" else OTHER
    answer = await stack.call("/enrollment", body("check_service_availability", **agent), vendor=vendor)
    enrollment_id = answer["data"]["enrollment_id"]
    created = await stack.call("/customer", create(enrollment_id, line(enrollment_id), **agent), vendor=vendor)
    assert created["msg_code"] == "RESTAPI000", created
    done = await until_status(stack, enrollment_id, "ACTIVE")
    assert done.mdn is not None
    return enrollment_id, done.mdn


async def test_a_port_of_an_active_lines_number_is_refused_at_intake(stack):
    holder, number = await active_line(stack)
    enrollment_id = await stack.new_enrollment_id()
    portin = line(enrollment_id, **{**PORT_FIELDS, "port_number": number})
    refused = await stack.call("/customer", create(enrollment_id, portin))
    assert refused["errors"] == [f"Line 1: Port number {number} belongs to active line {holder}"]
    # A number no active line holds is taken (the good value).
    other = await stack.new_enrollment_id()
    accepted = await stack.call("/customer", create(other, line(other, **{**PORT_FIELDS, "port_number": "4045551296"})))
    assert accepted["msg_code"] == "RESTAPI000", accepted


async def test_a_port_after_creation_of_an_active_lines_number_is_refused(stack):
    holder, number = await active_line(stack)
    enrollment_id = await stack.new_enrollment_id()
    waiting = line(enrollment_id, activation_later="Y", phone_type="4G", uiccid=new_iccid())
    assert (await stack.call("/customer", create(enrollment_id, waiting)))["msg_code"] == "RESTAPI000"
    fields = {name: value for name, value in PORT_FIELDS.items() if name != "activation_type"}
    refused = await stack.call(
        "/port", body(CREATE_PORTIN, enrollment_id=enrollment_id, **{**fields, "port_number": number})
    )
    assert refused["errors"] == [
        f"Number {number} belongs to active line {holder}; it cannot be ported into another line"
    ]
    assert (await stored_line(stack, enrollment_id)).status == "WAITING_ACTIVATION"


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_a_completed_port_marks_the_line_that_held_the_number_ported_out(stack):
    holder, number = await active_line(stack, vendor="OTHER")
    enrollment_id = await stack.new_enrollment_id()
    portin = line(enrollment_id, **{**PORT_FIELDS, "port_number": number, "phone_type": "4G", "uiccid": new_iccid()})
    assert (await stack.call("/customer", create(enrollment_id, portin)))["msg_code"] == "RESTAPI000"
    ported = await until_status(stack, enrollment_id, "ACTIVE")
    assert ported.mdn == number
    held = await stored_line(stack, holder)
    assert (held.status, held.last_error) == ("PORTED_OUT", f"Number ported to line {enrollment_id}")


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_a_repeated_create_of_a_completed_port_answers_as_the_first(stack):
    enrollment_id = await stack.new_enrollment_id()
    number = f"4045{secrets.randbelow(90_000) + 10_000}1"  # never ending 96 or 98 (sandbox scenarios)
    request = create(enrollment_id, line(enrollment_id, **{**PORT_FIELDS, "port_number": number}))
    assert (await stack.call("/customer", request))["msg_code"] == "RESTAPI000"
    await until_status(stack, enrollment_id, "ACTIVE")
    again = await stack.call("/customer", request)
    assert (again["msg_code"], again["data"][0]["data"]["mdn"]) == ("RESTAPI000", number), again
