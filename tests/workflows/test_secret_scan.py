"""The secret scan: after a port-in enrollment and a card payment, no customer secret is found in plaintext in
any table (the event log included), in any workflow history of the run, in any log record
(docs/reliability.md), or in any webhook delivery body the channel's receiver got (issue 21); the histories hold
no phone or SIM number either (their payloads are encrypted), nor a carrier's error text (failures are)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import string
from typing import Any

import pytest
from sqlmodel import SQLModel
from temporalio.api.enums.v1 import EventType

from models.enrollment.lines import FirstTryOutcome
from tests.support.builders import PORT_FIELDS, body, create, line, new_iccid
from tests.support.lines import wait_for
from tests.support.ports import port_number
from tests.support.stuck_lines import PACED, SIM_IN_USE, stuck_on_a_sim_in_use
from tests.support.webhooks import received, register
from workflows.enrollment import LineWorkflow, enrollment_workflow_id, line_workflow_id

CARD = "4242424242424242"  # Luhn-valid: the sandbox gateway approves it


def customer_secrets() -> dict[str, str]:
    tag = secrets.token_hex(4).upper()
    letters = "".join(secrets.choice(string.ascii_lowercase) for _ in range(8))
    return {
        "first_name": f"Zebulon{letters}",
        "last_name": f"Quixote{letters}",
        "service_address_one": f"{secrets.randbelow(9000) + 1000} Secretwood {tag} St",
        "email": f"hidden.{tag.lower()}@example.com",
        "port_account_number": f"ACCT{tag}",
        "port_account_password": f"{secrets.randbelow(900000) + 100000}",
        "password": f"pw-{tag.lower()}-line",
    }


async def table_text(stack: Any) -> str:
    async with stack.db.transaction() as session:
        rows = [
            repr(row)
            for table in SQLModel.metadata.sorted_tables
            for row in (await session.execute(table.select())).all()
        ]
    return "\n".join(rows)


async def history_bytes(stack: Any, workflow_ids: list[str]) -> bytes:
    found = b""
    for workflow_id in workflow_ids:
        async for event in stack.env.client.get_workflow_handle(workflow_id).fetch_history_events():
            found += event.SerializeToString()
    return found


async def workflow_ids(stack: Any, expected: int) -> list[str]:
    queue = stack.app.state.settings.temporal.task_queue
    for _ in range(100):  # visibility is eventually consistent
        ids = [w.id async for w in stack.env.client.list_workflows(f'TaskQueue = "{queue}"')]
        if len(ids) >= expected:
            return ids
        await asyncio.sleep(0.2)
    raise AssertionError(f"only {ids} listed")


async def delivered_bodies(stack: Any, enrollment_id: str) -> str:
    for _ in range(100):  # the payment's event goes out after the line's first ones
        bodies = [item["body"] for item in await received(stack, {enrollment_id})]
        if any("payment.recorded" in text for text in bodies):
            return "\n".join(bodies)
        await asyncio.sleep(0.2)
    raise AssertionError("the payment's event was not delivered")


async def test_no_customer_secret_in_tables_histories_or_logs(stack, caplog):
    values = customer_secrets()
    await register(stack)  # every event of the run is also delivered
    enrollment_id, sim = await stack.new_enrollment_id(), new_iccid()
    number = port_number()
    fields = {**PORT_FIELDS, **values, "port_number": number, "phone_type": "4G", "uiccid": sim}
    with caplog.at_level(logging.DEBUG, logger="lineup"), caplog.at_level(logging.INFO):
        created = await stack.call("/customer", create(enrollment_id, line(enrollment_id, **fields)))
        assert created["msg_code"] == "RESTAPI000", created
        paid = await stack.call("/payment", body("make_payment", enrollment_id=enrollment_id, card_number=CARD))
        assert paid["msg_code"] == "RESTAPI000", paid
        await wait_for(stack, [enrollment_id], {"ACTIVE", "PORT_PENDING", "PORTING"})
    logged = "\n".join(f"{r.getMessage()} {getattr(r, 'fields', '')}" for r in caplog.records)
    tables = await table_text(stack)
    histories = await history_bytes(stack, await workflow_ids(stack, expected=3))
    delivered = await delivered_bodies(stack, enrollment_id)
    assert histories and tables and logged and delivered  # the scan looked at something
    assert "line_event" in tables.lower() or "line.received" in tables
    for name, value in {**values, "card_number": CARD}.items():
        assert value not in delivered, f"{name} in a webhook delivery"
        assert value not in tables, f"{name} in a table"
        assert value.encode() not in histories, f"{name} in a workflow history"
        assert value not in logged, f"{name} in the logs"
    # Phone and SIM numbers are columns the service looks lines up by, but no history holds them in clear: every
    # payload is sealed by the payload codec (orchestration.codec) with the PII key.
    for name, value in {"port_number": number, "uiccid": sim}.items():
        assert value.encode() not in histories, f"{name} in a workflow history"
    assert b"binary/encrypted" in histories


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_a_carrier_refusal_is_ciphertext_in_the_history_and_plain_to_a_client_with_the_key(stack):
    """A failure's message and stack trace are encrypted as payloads are (workflows/codec.py), and so is a
    refusal a first try answers with: the carrier's words may quote what the line sent."""
    stuck = await stuck_on_a_sim_in_use(stack, new_iccid())
    # The order's first try met the refusal, in a local activity: its line's outcome is the order's marker's
    # result, a payload.
    order = stack.env.client.get_workflow_handle(enrollment_workflow_id(stuck, [stuck]))
    events = [event async for event in order.fetch_history_events()]
    markers = [
        event.marker_recorded_event_attributes
        for event in events
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
    ]
    results = [payload for marker in markers for payload in marker.details["result"].payloads]
    assert results and {payload.metadata["encoding"] for payload in results} == {b"binary/encrypted"}
    [outcomes] = await stack.env.client.data_converter.decode(results[:1], [list[FirstTryOutcome]])
    assert outcomes == [FirstTryOutcome(stuck, refused=SIM_IN_USE)]  # plain to a client with the key
    handle = stack.env.client.get_workflow_handle(line_workflow_id(stuck))
    line_events = [event async for event in handle.fetch_history_events()]
    history = b"".join(event.SerializeToString() for event in [*events, *line_events])
    assert SIM_IN_USE.encode() not in history
    assert SIM_IN_USE in ((await handle.query(LineWorkflow.status)).error or "")
