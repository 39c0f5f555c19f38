"""Activation asked for a line that is already ACTIVE (decisions.md, new_number_activation_with_zip_code and
activate_line; issue 34): the original's channels create the customer, then activate it. With no SIM or the
line's own SIM the answer is RESTAPI000 with the line's entry, whose msg says `Line is already active`, and the
carrier is asked nothing; with another SIM it is RESTAPI110 naming the line's SIM by its last 4 digits, and
nothing changes (a storefront would otherwise tell its customer that SIM was activated)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.builders import body, create, line, new_iccid
from tests.support.lines import stored_line

ALREADY_ACTIVE = "Line is already active"


async def active_line(stack: Any, **overrides: Any) -> tuple[str, dict[str, Any]]:
    """A line checkout activated, and its creation entry."""
    parent = await stack.new_enrollment_id()
    created = await stack.call("/customer", create(parent, line(parent, **overrides)))
    [entry] = created["data"]
    assert entry["msg"] == "Customer created and line activated", created
    return parent, entry


async def carrier_activations(stack: Any, enrollment_id: str) -> list[dict[str, Any]]:
    """Every activation the carrier sandbox answered for this line (its keys name the line's workflow)."""
    async with httpx.AsyncClient() as http:
        ledger = (await http.get(f"{stack.sandbox}/sandbox/ledger")).json()
    return [entry for entry in ledger["activations"] if enrollment_id in entry["key"]]


def activate_line(enrollment_id: str, **sim: str) -> tuple[str, dict[str, Any]]:
    return "/customer", body("activate_line", enrollment_id=enrollment_id, **sim)


def new_number_activation(enrollment_id: str, **sim: str) -> tuple[str, dict[str, Any]]:
    """The mobile channels' body, as the original's apps send it."""
    return "/inventory", {
        "action": "new_number_activation_with_zip_code", "source": "API", "agent_id": "demo.agent",
        "enrollment_id": enrollment_id, "zip_code": "30301", **sim,
    }  # fmt: skip


ASKS = {"activate_line": activate_line, "new_number_activation_with_zip_code": new_number_activation}
OWN_SIM_NAMES = {"activate_line": "uiccid", "new_number_activation_with_zip_code": "sim"}


@pytest.mark.parametrize("action", ASKS)
@pytest.mark.parametrize("with_sim", [False, True], ids=["no SIM", "its own SIM"])
async def test_an_active_line_answers_its_entry_already_active_and_the_carrier_is_not_asked(
    shared_stack, action, with_sim
):
    enrollment_id, created = await active_line(shared_stack)
    asked_before = await carrier_activations(shared_stack, enrollment_id)
    own = (await stored_line(shared_stack, enrollment_id)).iccid
    sim = {OWN_SIM_NAMES[action]: own} if with_sim and own else {}
    answer = await shared_stack.call(*ASKS[action](enrollment_id, **sim))
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", "Success"), answer
    [entry] = answer["data"]
    assert (entry["msg_code"], entry["msg"]) == ("RESTAPI000", ALREADY_ACTIVE)
    assert entry["data"] == created["data"]  # the same customer, MDN and SIM: nothing was made again
    assert await carrier_activations(shared_stack, enrollment_id) == asked_before != []


@pytest.mark.parametrize("action", ASKS)
async def test_an_active_line_asked_with_another_sim_is_refused_and_nothing_changes(shared_stack, action):
    sim = new_iccid()
    enrollment_id, _ = await active_line(shared_stack, uiccid=sim, phone_type="4G")
    before = await stored_line(shared_stack, enrollment_id)
    asked_before = await carrier_activations(shared_stack, enrollment_id)
    other = {OWN_SIM_NAMES[action]: new_iccid()}
    answer = await shared_stack.call(*ASKS[action](enrollment_id, **other))
    assert (answer["msg_code"], answer["errors"]) == (
        "RESTAPI110",
        [f"Line is already active on another SIM (ending {sim[-4:]})"],
    ), answer
    after = await stored_line(shared_stack, enrollment_id)
    assert (after.status, after.iccid, after.mdn) == ("ACTIVE", sim, before.mdn)
    assert await carrier_activations(shared_stack, enrollment_id) == asked_before
    inquiry = await shared_stack.call("/customer", body("line_inquiry", enrollment_id=enrollment_id))
    assert inquiry["data"]["LINE_INQ"]["SIM_NUMBER"] == sim


async def test_the_sim_sent_as_esn_is_compared_too(shared_stack):
    sim = new_iccid()
    enrollment_id, _ = await active_line(shared_stack, uiccid=sim, phone_type="4G")
    own = await shared_stack.call(*new_number_activation(enrollment_id, esn=sim))
    assert own["data"][0]["msg"] == ALREADY_ACTIVE, own
    other = await shared_stack.call(*new_number_activation(enrollment_id, esn=new_iccid()))
    assert other["errors"] == [f"Line is already active on another SIM (ending {sim[-4:]})"]


@pytest.mark.parametrize("action", ASKS)
async def test_another_vendors_active_line_names_nothing(shared_stack, action):
    enrollment_id, _ = await active_line(shared_stack)
    path, sent = ASKS[action](enrollment_id)
    answer = await shared_stack.call(path, {**sent, "agent_id": "other.agent"}, vendor="OTHER")
    assert answer["errors"] == ["No customer found against this enrolment ID"], answer
    assert enrollment_id not in str(answer)
