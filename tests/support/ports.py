"""Port-ins through a Stack: a line created to port a number in, and query_portin followed until the port
reaches a status (the session's sandbox completes a port 4 s after submission; FAST_POLLS polls it twice a
second)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from adapters.carrier import CarrierClient
from models.porting import PortIn
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.waiting import attempted, eventually

FAST_POLLS = {"port_poll_seconds": 0.5}


def port_number(ending: str = "") -> str:
    digits = "".join(secrets.choice("0123456789") for _ in range(6 - len(ending)))
    number = f"4045{digits}{ending}"
    return number if ending or number[-2:] not in ("96", "98") else port_number()


async def ported_line(stack: Any, **port_overrides: Any) -> tuple[str, str, str]:
    enrollment_id, sim, number = await stack.new_enrollment_id(), new_iccid(), port_number()
    fields = {**PORT_FIELDS, "port_number": number, "phone_type": "4G", "uiccid": sim, **port_overrides}
    created = await stack.call("/customer", create(enrollment_id, line(enrollment_id, **fields)))
    assert created["msg_code"] == "RESTAPI000", created
    return enrollment_id, sim, fields["port_number"]


def query(enrollment_id: str, sim: str, number: str, **overrides: Any) -> dict[str, Any]:
    return body(
        "query_portin", **{"enroll_id": enrollment_id, "esn": sim, "mdn": number, "carrier": "TMB", **overrides}
    )


async def wait_for_port(stack: Any, request: dict[str, Any], wanted: str, within: float = 30.0) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        answer: dict[str, Any] = await stack.call("/port", request)
        assert answer["msg_code"] == "RESTAPI000", answer
        if answer["data"]["records"][0]["portin_status"] == wanted:
            return answer
        assert asyncio.get_running_loop().time() < deadline, answer
        await asyncio.sleep(0.3)


async def carrier_port_id(stack: Any, enrollment_id: str) -> str:
    """The carrier's id of the line's port, once it was submitted."""

    async def stored() -> str | None:
        async with stack.db.transaction() as session:
            order = await session.get(PortIn, enrollment_id)
        return order.carrier_port_id if order is not None else None

    port_id: str | None = await eventually(stored, what="the port submitted")
    assert port_id is not None
    return port_id


async def carrier_status(stack: Any, port_id: str) -> str:
    """The port's status as the carrier sandbox has it (Lineup may not know it yet)."""
    carrier = CarrierClient(f"{stack.sandbox}/carrier")
    try:
        return (await carrier.port_status("DEMO", port_id)).status
    finally:
        await carrier.close()


async def done_at_the_carrier(stack: Any, enrollment_id: str) -> str:
    """The carrier's id of the line's port, once the carrier has completed it (4 s after its submission)."""
    port_id = await carrier_port_id(stack, enrollment_id)
    await eventually(lambda: carrier_status(stack, port_id), lambda status: status == "COMPLETED", what="the port done")
    return port_id


async def polled(stack: Any, enrollment_id: str, times: int = 3) -> None:
    """Once the port's workflow has asked the carrier `times` times (watch_port: one poll an attempt)."""
    await attempted(stack.env.client, f"port-{enrollment_id}", times)
