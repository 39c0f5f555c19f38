"""Lines through a Stack, as the database has them: their statuses, waiting for them to reach some, the carrier
sandbox's record of them, and a line created to wait for activation."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from sqlmodel import col, select
from temporalio.service import RPCError

from cli.accounts import SUPPORT_API_PASSWORD
from models.enrollment.lines import Line
from models.events import LineEvent
from tests.support.builders import body, create, line, new_iccid
from tests.support.received import carrier_lines
from tests.support.waiting import eventually

# demo.support gives its API password on every call (decisions.md, "Who calls").
SUPPORT = {"agent_id": "demo.support", "agent_password": SUPPORT_API_PASSWORD}
OTHER = {"agent_id": "other.agent"}


def new_number(ending: str = "") -> str:
    """A number to port; ending 96, its old carrier never answers (the port stays SUBMITTED); 98, not eligible."""
    digits = "".join(secrets.choice("0123456789") for _ in range(6 - len(ending)))
    number = f"4045{digits}{ending}"
    return number if ending or number[-2:] not in ("96", "98") else new_number()


async def vendor_waiting_line(stack: Any, vendor: str = "DEMO") -> tuple[str, str]:
    """A NEWACTIVATION line of `vendor` (DEMO, or OTHER through its agent) with its SIM attached, waiting for
    activation, and that SIM."""
    agent = {} if vendor == "DEMO" else OTHER
    answer = await stack.call("/enrollment", body("check_service_availability", **agent), vendor=vendor)
    enrollment_id, sim = answer["data"]["enrollment_id"], new_iccid()
    waiting = line(enrollment_id, activation_later="Y", phone_type="4G", uiccid=sim)
    created = await stack.call("/customer", create(enrollment_id, waiting, **agent), vendor=vendor)
    assert created["data"][0]["msg"] == "Customer created; SIM attached for activation later", created
    return enrollment_id, sim


async def lines_by_status(stack: Any, ids: list[str]) -> dict[str, str]:
    async with stack.db.transaction() as session:
        rows = (await session.exec(select(Line).where(Line.enrollment_id.in_(ids)))).all()  # type: ignore[attr-defined]
    return {row.enrollment_id: row.status for row in rows}


async def wait_for(stack: Any, ids: list[str], wanted: set[str], within: float = 60.0) -> dict[str, str]:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        statuses = await lines_by_status(stack, ids)
        if len(statuses) == len(ids) and set(statuses.values()) <= wanted:
            return statuses
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"lines did not reach {wanted}: {statuses}")
        await asyncio.sleep(0.2)


async def sandbox_lines(stack: Any, enrollment_id: str) -> list[dict[str, Any]]:
    return await carrier_lines(stack.sandbox, enrollment_id)


async def waiting_line(stack: Any, **overrides: Any) -> str:
    """A line created with activation_later=Y: its SIM attached, waiting for activate_line."""
    parent: str = await stack.new_enrollment_id()
    created = await stack.call("/customer", create(parent, line(parent, activation_later="Y", **overrides)))
    assert created["data"][0]["msg"] == "Customer created; SIM attached for activation later", created
    return parent


async def stored_line(stack: Any, enrollment_id: str) -> Line:
    async with stack.db.transaction() as session:
        found: Line = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
        return found


async def until_status(
    stack: Any, enrollment_id: str, wanted: str, within: float = 40.0, *, mdn: str | None = None
) -> Line:
    """The line once its status is `wanted` (and its number `mdn`, when given; fails after `within` seconds)."""
    deadline = asyncio.get_running_loop().time() + within
    while (found := await stored_line(stack, enrollment_id)).status != wanted or mdn not in (None, found.mdn):
        assert asyncio.get_running_loop().time() < deadline, (found.status, found.mdn)
        await asyncio.sleep(0.2)
    return found


async def event_types(stack: Any, enrollment_id: str) -> list[str]:
    """The line's event log, oldest first, by type."""
    async with stack.db.transaction() as session:
        query = select(LineEvent.type).where(LineEvent.enrollment_id == enrollment_id).order_by(col(LineEvent.id))
        return list((await session.exec(query)).all())


async def activations_sent(stack: Any, ids: list[str]) -> bool:
    """Whether every line's activation went to the carrier: its attempt is recorded right before the call."""
    logged = [await event_types(stack, enrollment_id) for enrollment_id in ids]
    return all("line.activation_attempted" in events for events in logged)


async def line_workflow(stack: Any, enrollment_id: str, within: float = 20.0) -> Any:
    """The line's workflow's description, once its order has started it (a moment after the create's answer)."""
    handle = stack.env.client.get_workflow_handle(f"line-{enrollment_id}")

    async def described() -> Any:
        try:
            return await handle.describe()
        except RPCError:
            return None

    return await eventually(
        described,
        lambda found: found is not None,
        within=within,
        every=0.05,
        what=f"a workflow for line {enrollment_id}",
    )


async def activated_once(api: Any, sandbox_url: str, enrollment_id: str, activated: Any) -> None:
    """The line is ACTIVE with the number and MSID the activation answered, shipped, one line at the carrier, and
    its events end with the attempt and the activation (however often the activation was run)."""
    line = await stored_line(api, enrollment_id)
    assert (line.status, line.mdn, line.msid) == ("ACTIVE", activated.mdn, activated.msid)
    assert line.shipment_reference  # the builders' line ships
    assert len(await carrier_lines(sandbox_url, enrollment_id)) == 1
    assert (await event_types(api, enrollment_id))[-2:] == ["line.activation_attempted", "line.activated"]
