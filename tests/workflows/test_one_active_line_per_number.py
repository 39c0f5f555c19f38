"""Ports of a number Lineup holds (decisions.md, "Porting a number Lineup holds"; issue 27, findings 2 and 7): a
port-in of a number an active line of any vendor holds goes only with that line's account number and PIN, as
a losing carrier checks a port-out; otherwise it is RESOLUTION_REQUIRED (8A, one refusal for either), never completes,
and no answer names the holding line, its enrollment or its vendor. With them the port completes and the line
that held the number is PORTED_OUT. A number with a port in progress on another line is refused at intake, even
four at once."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import pytest

from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import stored_line, until_status
from tests.support.ports import query, wait_for_port

FAST_POLLS = {"port_poll_seconds": 0.5}
OTHER = {"agent_id": "other.agent"}


async def active_line(stack: Any, vendor: str = "DEMO") -> tuple[str, str, str, str]:
    """A line activated with a new number that can be ported (the sandbox refuses a port of a number ending 98,
    sandbox.md, and gives such numbers to 1 line in 100): its enrollment id, MDN, customer id and account PIN."""
    while (found := await _activated(stack, vendor))[1].endswith(NOT_PORTABLE):
        pass
    return found


NOT_PORTABLE = "98"


async def _activated(stack: Any, vendor: str) -> tuple[str, str, str, str]:
    agent = {} if vendor == "DEMO" else OTHER
    answer = await stack.call("/enrollment", body("check_service_availability", **agent), vendor=vendor)
    enrollment_id = answer["data"]["enrollment_id"]
    created = await stack.call("/customer", create(enrollment_id, line(enrollment_id), **agent), vendor=vendor)
    assert created["msg_code"] == "RESTAPI000", created
    entry = created["data"][0]["data"]
    done = await until_status(stack, enrollment_id, "ACTIVE")
    assert done.mdn is not None
    return enrollment_id, done.mdn, entry["customer_id"], entry["pin"]


async def port_into_a_new_line(stack: Any, number: str, **old_account: str) -> tuple[dict[str, Any], str, str]:
    enrollment_id, sim = await stack.new_enrollment_id(), new_iccid()
    fields = {**PORT_FIELDS, "port_number": number, "phone_type": "4G", "uiccid": sim, **old_account}
    answer = await stack.call("/customer", create(enrollment_id, line(enrollment_id, **fields)))
    return answer, enrollment_id, sim


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_another_vendors_port_without_the_holders_account_never_completes_and_names_nothing(stack):
    holder, number, customer_id, pin = await active_line(stack, vendor="OTHER")
    answer, enrollment_id, sim = await port_into_a_new_line(stack, number, port_account_number="ACC98765")
    assert answer["msg_code"] == "RESTAPI000", answer
    status = await wait_for_port(stack, query(enrollment_id, sim, number), "RESOLUTION_REQUIRED")
    [record] = status["data"]["records"]
    assert record["resolution_description"] == "Account number or PIN does not match"  # never which of the two
    other_pin = "0001" if pin != "0001" else "0002"
    wrong_pin = body(
        "update_portin", enroll_id=enrollment_id, port_account_number=customer_id, port_account_password=other_pin
    )
    assert (await stack.call("/port", wrong_pin))["data"]["portin_status"] == "RESOLUTION_REQUIRED"
    await asyncio.sleep(3)  # the sandbox would have completed an accepted port by now
    held = await stored_line(stack, holder)
    assert (held.status, held.mdn) == ("ACTIVE", number)  # the holder keeps its number
    seen = json.dumps([answer, status, await stack.call("/port", query(enrollment_id, sim, number))])
    assert holder not in seen and str(customer_id) not in seen and "OTHER" not in seen  # nothing names the other side


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_a_port_with_the_holders_account_and_pin_completes_and_ports_the_holder_out(stack):
    holder, number, customer_id, pin = await active_line(stack, vendor="OTHER")
    owner = {"port_account_number": customer_id, "port_account_password": pin}
    answer, enrollment_id, _ = await port_into_a_new_line(stack, number, **owner)
    assert answer["msg_code"] == "RESTAPI000", answer
    ported = await until_status(stack, enrollment_id, "ACTIVE", mdn=number)
    assert ported.mdn == number
    held = await stored_line(stack, holder)
    assert (held.status, held.last_error) == ("PORTED_OUT", "Number ported out")  # it names no line


async def test_a_number_with_a_port_in_progress_is_refused_even_four_at_once(stack):
    number = f"4045{secrets.randbelow(90_000) + 10_000}1"
    answers = await asyncio.gather(*(port_into_a_new_line(stack, number) for _ in range(4)))
    codes = sorted(answer["msg_code"] for answer, _, _ in answers)
    assert codes == ["RESTAPI000", "RESTAPI110", "RESTAPI110", "RESTAPI110"], answers
    refusals = {error for answer, _, _ in answers for error in answer.get("errors", [])}
    assert refusals <= {"Line 1: Number already has a port in progress", "Number already has a port in progress"}
    later, _, _ = await port_into_a_new_line(stack, number)
    assert later["errors"] == ["Line 1: Number already has a port in progress"]


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_a_repeated_create_of_a_completed_port_answers_as_the_first(stack):
    enrollment_id = await stack.new_enrollment_id()
    number = f"4045{secrets.randbelow(90_000) + 10_000}1"  # never ending 96 or 98 (sandbox scenarios)
    request = create(enrollment_id, line(enrollment_id, **{**PORT_FIELDS, "port_number": number}))
    assert (await stack.call("/customer", request))["msg_code"] == "RESTAPI000"
    await until_status(stack, enrollment_id, "ACTIVE")
    again = await stack.call("/customer", request)
    assert (again["msg_code"], again["data"][0]["data"]["mdn"]) == ("RESTAPI000", number), again
