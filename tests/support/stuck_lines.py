"""Lines stuck waiting for support, made through a Stack: one whose SIM another line holds (the carrier refuses
it) and two whose activation met a carrier outage."""

from __future__ import annotations

from tests.support.builders import body, create, line
from tests.support.lines import wait_for

SIM_IN_USE = "915 SIM already in use"
# One carrier attempt parks a line in STUCK; its own slow retry stays out of the way of the test.
PACED = {"carrier_max_attempts": 1, "sync_wait_seconds": 1, "stuck_retry_minutes": 600}


async def new_id(stack, vendor: str = "DEMO") -> str:
    agent = "demo.agent" if vendor == "DEMO" else "other.agent"
    answer = await stack.call("/enrollment", body("check_service_availability", agent_id=agent), vendor=vendor)
    return str(answer["data"]["enrollment_id"])


async def stuck_on_a_sim_in_use(stack, sim: str, vendor: str = "DEMO") -> str:
    """A line whose SIM another line already holds: the carrier refuses it, so it waits for support."""
    agent = {} if vendor == "DEMO" else {"agent_id": "other.agent"}
    holder, stuck = await new_id(stack, vendor), await new_id(stack, vendor)
    for enrollment_id in (holder, stuck):
        created = await stack.call(
            "/customer", create(enrollment_id, line(enrollment_id, phone_type="4G", uiccid=sim), **agent), vendor=vendor
        )
        assert created["msg_code"] == "RESTAPI000", created
    await wait_for(stack, [stuck], {"STUCK"})
    return stuck


async def stuck_in_an_outage(stack) -> list[str]:
    """Two lines whose activation met a carrier answering nothing but 503."""
    parent, second = await new_id(stack), await new_id(stack)
    await stack.faults(fault_rate=1)
    try:
        created = await stack.call("/customer", create(parent, line(parent), line(second)))
        assert created["msg_code"] == "RESTAPI000", created
        await wait_for(stack, [parent, second], {"STUCK"})
    finally:
        await stack.faults(fault_rate=0)
    return [parent, second]
