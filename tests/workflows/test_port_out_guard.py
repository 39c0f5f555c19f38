"""Port-outs that cannot be guessed and ports that do not squat (issue 35, items 1 and 3), against the dev server and
the carrier sandbox. update_portin's guesses at a held number's PIN are counted: the fifth wrong one locks the
number's ports, and the right PIN after it is refused too; each refusal says the same whichever part was wrong,
and the holder's vendor hears each by webhook. Another vendor's order waiting for corrections holds the number
for LINEUP_PORT_HOLD_HOURS only: then the newer port goes ahead and completes, the older order ends CANCELLED
(its workflow too, its line PORT_CANCELLED, `port.cancelled` to its vendor), and the holder hears
`line.ported_out`."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col

from models.porting import PortIn
from models.types import utcnow
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import OTHER, event_types, new_number, stored_line, until_status
from tests.support.ports import query, wait_for_port
from tests.support.waiting import eventually
from tests.support.webhooks import received, register

FAST_POLLS = {"port_poll_seconds": 0.5}
MISMATCH = "Account number or PIN does not match"
NOT_NOW = "The number cannot be ported now"


async def holder(stack: Any) -> tuple[str, str, str, str]:
    """An ACTIVE line of the vendor OTHER with a new number: its enrollment id, MDN, customer id and PIN."""
    answer = await stack.call("/enrollment", body("check_service_availability", **OTHER), vendor="OTHER")
    enrollment_id = answer["data"]["enrollment_id"]
    created = await stack.call("/customer", create(enrollment_id, line(enrollment_id), **OTHER), vendor="OTHER")
    assert created["msg_code"] == "RESTAPI000", created
    entry = created["data"][0]["data"]
    done = await until_status(stack, enrollment_id, "ACTIVE")
    assert done.mdn is not None
    return enrollment_id, done.mdn, str(entry["customer_id"]), entry["pin"]


async def port(stack: Any, number: str, *, vendor: str = "DEMO", **old_account: Any) -> tuple[dict[str, Any], str, str]:
    """A create of a line porting `number` by `vendor`: its answer, enrollment id and SIM."""
    agent = OTHER if vendor == "OTHER" else {}
    answer = await stack.call("/enrollment", body("check_service_availability", **agent), vendor=vendor)
    enrollment_id, sim = answer["data"]["enrollment_id"], new_iccid()
    fields = {**PORT_FIELDS, "port_number": number, "phone_type": "4G", "uiccid": sim, **old_account}
    created = await stack.call(
        "/customer", create(enrollment_id, line(enrollment_id, **fields), **agent), vendor=vendor
    )
    return created, enrollment_id, sim


def wrong(pin: str, n: int = 1) -> str:
    return f"{(int(pin) + n) % 10_000:04d}"


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_update_portin_the_sixth_guess_is_refused_even_with_the_right_pin(stack):
    await register(stack, vendor="OTHER", events="line.port_out_attempted")
    held, number, customer_id, pin = await holder(stack)
    created, guessing, sim = await port(stack, number, port_account_number="ACC98765", port_account_password=pin)
    assert created["msg_code"] == "RESTAPI000", created
    status = await wait_for_port(stack, query(guessing, sim, number), "RESOLUTION_REQUIRED")
    assert status["data"]["records"][0]["resolution_description"] == MISMATCH  # the account was wrong
    for n in range(1, 5):  # the PIN wrong: the same words; the fifth wrong check locks the number
        guess = body(
            "update_portin", enroll_id=guessing, port_account_number=customer_id, port_account_password=wrong(pin, n)
        )
        assert (await stack.call("/port", guess))["data"]["portin_status"] == "RESOLUTION_REQUIRED"
        said = (await stack.call("/port", query(guessing, sim, number)))["data"]["records"][0]
        assert said["resolution_description"] == (NOT_NOW if n == 4 else MISMATCH)
    right = body("update_portin", enroll_id=guessing, port_account_number=customer_id, port_account_password=pin)
    assert (await stack.call("/port", right))["data"]["portin_status"] == "RESOLUTION_REQUIRED"
    said = (await stack.call("/port", query(guessing, sim, number)))["data"]["records"][0]
    assert said["resolution_description"] == NOT_NOW
    assert (await stored_line(stack, held)).status == "ACTIVE"  # the number stays
    deliveries = await eventually(
        lambda: received(stack, {held}), lambda found: len(found) == 6, what="six refusals delivered"
    )
    told = [json.loads(delivery["body"]) for delivery in deliveries]
    assert {item["type"] for item in told} == {"line.port_out_attempted"}
    facts = sorted((item["data"]["failures"], item["data"]["locked"]) for item in told)
    assert facts == [(1, False), (2, False), (3, False), (4, False), (5, True), (5, True)]
    assert guessing not in json.dumps(told) and "DEMO" not in json.dumps(told) and "ACC98765" not in json.dumps(told)


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_an_order_waiting_for_corrections_gives_way_after_the_port_hold(stack):
    held, number, customer_id, pin = await holder(stack)
    created, squatting, sim = await port(stack, number, port_account_number="ACC98765")
    assert created["msg_code"] == "RESTAPI000", created
    await wait_for_port(stack, query(squatting, sim, number), "RESOLUTION_REQUIRED")
    owner = {"port_account_number": customer_id, "port_account_password": pin}
    refused, _, _ = await port(stack, number, vendor="OTHER", **owner)
    assert refused["errors"] == [f"Line 1: {NOT_NOW}"], refused  # held: nothing says another port exists
    async with stack.db.transaction() as session:  # the port hold's 24 hours pass
        since = utcnow() - timedelta(hours=24, minutes=1)
        order = col(PortIn.enrollment_id) == squatting
        await session.execute(update(PortIn).where(order).values(held_since=since))
    taken, newer, _ = await port(stack, number, vendor="OTHER", **owner)
    assert taken["msg_code"] == "RESTAPI000", taken
    gone = await until_status(stack, squatting, "PORT_CANCELLED")
    assert gone.last_error == "Cancelled: not corrected within the port hold"
    handle = stack.env.client.get_workflow_handle(f"port-{squatting}")
    assert (await handle.result())["status"] == "CANCELLED"
    assert "port.cancelled" in await event_types(stack, squatting)
    await until_status(stack, newer, "ACTIVE", mdn=number)
    assert (await stored_line(stack, held)).status == "PORTED_OUT"
    assert "line.ported_out" in await event_types(stack, held)


@pytest.mark.parametrize("settings_overrides", [FAST_POLLS])
async def test_a_port_the_old_carrier_wants_corrected_gives_way_after_the_port_hold_too(stack):
    number = new_number()
    created, squatting, sim = await port(stack, number, port_account_number="ACC0000")  # the carrier: 8A
    assert created["msg_code"] == "RESTAPI000", created
    await wait_for_port(stack, query(squatting, sim, number), "RESOLUTION_REQUIRED")
    async with stack.db.transaction() as session:  # the port hold's 24 hours pass
        since = utcnow() - timedelta(hours=24, minutes=1)
        await session.execute(update(PortIn).where(col(PortIn.enrollment_id) == squatting).values(held_since=since))
    taken, newer, _ = await port(stack, number, vendor="OTHER")
    assert taken["msg_code"] == "RESTAPI000", taken
    await until_status(stack, squatting, "PORT_CANCELLED")
    refused = await stack.call("/port", body("update_portin", enroll_id=squatting, port_account_number="ACC12345"))
    assert refused["errors"] == [
        "The port-in is CANCELLED; corrections are accepted only when it is RESOLUTION_REQUIRED"
    ]
    await until_status(stack, newer, "ACTIVE", mdn=number)
