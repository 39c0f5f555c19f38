"""Ports that do not squat (issue 35, item 3): a number with another vendor's port in progress is refused at intake
in words that do not tell another vendor is porting it ("The number cannot be ported now"; the vendor's own
second port keeps "Number already has a port in progress"). An order of another vendor waiting for corrections
(RESOLUTION_REQUIRED) holds the number for LINEUP_PORT_HOLD_HOURS from when it began to wait; after that the new
port is taken and the older order is CANCELLED, with `port.cancelled` to its vendor. Intake through an API whose
Temporal is unreachable: the lines and port orders are stored, no workflow runs (tests/workflows has the whole
story)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from models.enrollment.lines import Line, LineStatus
from models.events import LineEvent
from models.porting import HOLD_ENDED, PortIn, PortStatus
from models.types import utcnow
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import OTHER
from tests.support.ports import port_number

UNAVAILABLE = ["The workflow engine is unavailable, please try again later"]  # the order is stored, nothing runs
NOT_NOW = ["Line 1: The number cannot be ported now"]
IN_PROGRESS = ["Line 1: Number already has a port in progress"]


async def port(api: Any, number: str, *, vendor: str = "DEMO") -> tuple[list[str], str]:
    """A create of one line porting `number` by `vendor`: the answer's errors and the line's enrollment id."""
    agent = OTHER if vendor == "OTHER" else {}
    answer = await api.call("/enrollment", body("check_service_availability", **agent), vendor=vendor)
    enrollment_id = answer["data"]["enrollment_id"]
    fields = {**PORT_FIELDS, "port_number": number, "phone_type": "4G", "uiccid": new_iccid()}
    created = await api.call("/customer", create(enrollment_id, line(enrollment_id, **fields), **agent), vendor=vendor)
    return created.get("errors", []), enrollment_id


async def waiting_since(api: Any, enrollment_id: str, ago: timedelta, status: str = "RESOLUTION_REQUIRED") -> None:
    """The line's port order has been in `status` (waiting for corrections) since `ago`."""
    async with api.db.transaction() as session:
        since = utcnow() - ago
        order = col(PortIn.enrollment_id) == enrollment_id
        await session.execute(update(PortIn).where(order).values(status=status, held_since=since, responded_at=since))


async def order_of(api: Any, enrollment_id: str) -> PortIn:
    async with api.db.transaction() as session:
        found: PortIn | None = await session.get(PortIn, enrollment_id)
    assert found is not None
    return found


async def test_create_another_vendors_port_in_progress_is_refused_without_saying_so(api):
    number = port_number()
    assert (await port(api, number))[0] == UNAVAILABLE
    assert (await port(api, number, vendor="OTHER"))[0] == NOT_NOW
    assert (await port(api, number))[0] == IN_PROGRESS  # the vendor's own second port: as before


async def test_create_an_order_waiting_for_corrections_holds_the_number_for_the_port_hold_only(api):
    number = port_number()
    _, squatting = await port(api, number)
    await waiting_since(api, squatting, timedelta(hours=23))
    assert (await port(api, number, vendor="OTHER"))[0] == NOT_NOW
    await waiting_since(api, squatting, timedelta(hours=24, minutes=1))
    assert (await port(api, number))[0] == IN_PROGRESS  # its own vendor's port does not push it out
    errors, newer = await port(api, number, vendor="OTHER")
    assert errors == UNAVAILABLE  # taken: stored, its workflow to start
    older = await order_of(api, squatting)
    assert (older.status, older.carrier_response, older.held_since) == ("CANCELLED", HOLD_ENDED, None)
    assert (await order_of(api, newer)).status == PortStatus.RECEIVED
    async with api.db.transaction() as session:
        query = select(LineEvent).where(LineEvent.enrollment_id == squatting).order_by(col(LineEvent.id))
        events = (await session.exec(query)).all()
        squatter = await session.get(Line, squatting)
    assert squatter is not None
    cancelled = [event for event in events if event.type == "port.cancelled"]
    assert [(event.vendor_id, json.loads(event.data)["reason"]) for event in cancelled] == [
        (squatter.vendor_id, HOLD_ENDED)
    ]
    assert newer not in json.dumps([event.data for event in events])  # it names no other port


async def test_create_a_port_the_carrier_is_working_on_is_not_cancelled_by_the_hold(api):
    number = port_number()
    _, submitted = await port(api, number)
    await waiting_since(api, submitted, timedelta(hours=48), status="SUBMITTED")
    assert (await port(api, number, vendor="OTHER"))[0] == NOT_NOW
    assert (await order_of(api, submitted)).status == "SUBMITTED"


async def test_create_portin_v2_another_vendors_hold_is_refused_without_saying_so(api):
    number = port_number()
    _, squatting = await port(api, number)
    await waiting_since(api, squatting, timedelta(hours=1))
    answer = await api.call("/enrollment", body("check_service_availability", **OTHER), vendor="OTHER")
    waiting = answer["data"]["enrollment_id"]
    await api.call("/customer", create(waiting, line(waiting), **OTHER), vendor="OTHER")
    async with api.db.transaction() as session:
        await session.execute(
            update(Line).where(col(Line.enrollment_id) == waiting).values(status=LineStatus.WAITING_ACTIVATION)
        )
    fields = {key: value for key, value in PORT_FIELDS.items() if key not in ("activation_type", "port_ssn")}
    request = body(
        "create_portin_v2_when_create_customer_was_called_without_portin_tag",
        enrollment_id=waiting,
        **{**fields, "port_number": number},
        **OTHER,
    )
    refused = await api.call("/port", request, vendor="OTHER")
    assert (refused["msg_code"], refused["errors"]) == ("RESTAPI110", ["The number cannot be ported now"]), refused
