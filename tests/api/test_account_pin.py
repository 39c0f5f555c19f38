"""The account PIN (decisions.md, "Account PIN"): stored encrypted, never in a workflow's history, never
logged; a line made before every customer had one gets one when an answer first needs it, and keeps it."""

from __future__ import annotations

import base64
import json
import logging
import re
from typing import Any

from sqlmodel import select
from temporalio.api.common.v1 import Payload

from models.enrollment.lines import Line
from tests.support.builders import body, create, line
from tests.support.keys import encrypting_converter
from workflows.enrollment import enrollment_workflow_id

PIN = "7391"
# The PIN as a number of its own: four digits inside a timestamp or an id (`18:29:04.273911865Z`) are chance.
WHOLE_PIN = re.compile(rf"(?<!\d){PIN}(?!\d)")


def payload_nodes(node: Any) -> list[dict[str, Any]]:
    """Every payload of a history as `to_json_dict()` gives it (inputs, results, headers, search attributes)."""
    if isinstance(node, list):
        return [found for item in node for found in payload_nodes(item)]
    if not isinstance(node, dict):
        return []
    own = [node] if {"metadata", "data"} <= node.keys() else []
    return own + [found for value in node.values() for found in payload_nodes(value)]


async def history_texts(client: Any, workflow_id: str) -> tuple[str, list[str]]:
    """The history's own text with its payloads' data left out, and each payload opened with the tests' key:
    what the PIN would be found in if it reached the history, encrypted or not."""
    history = (await client.get_workflow_handle(workflow_id).fetch_history()).to_json_dict()
    nodes = payload_nodes(history)
    sealed = [
        Payload(
            metadata={name: base64.b64decode(value) for name, value in node["metadata"].items()},
            data=base64.b64decode(node.get("data", "")),
        )
        for node in nodes
    ]
    codec = encrypting_converter().payload_codec
    assert codec is not None
    opened = await codec.decode(sealed)
    for node in nodes:
        node["data"] = ""
    return json.dumps(history), [payload.data.decode(errors="replace") for payload in opened]


async def test_the_pin_is_sealed_at_rest_and_kept_out_of_histories_and_logs(shared_stack, caplog):
    enrollment_id = await shared_stack.new_enrollment_id()
    with caplog.at_level(logging.DEBUG):
        created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id, pin=PIN)))
        assert created["data"][0]["data"]["pin"] == PIN, created
    assert PIN not in caplog.text
    async with shared_stack.db.transaction() as session:
        stored = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
    assert stored.pin is not None and PIN not in stored.pin and PIN not in stored.pii
    client = shared_stack.env.client
    for workflow_id in (enrollment_workflow_id(enrollment_id, [enrollment_id]),):  # its line is done in it
        outside, inside = await history_texts(client, workflow_id)
        assert enrollment_id in outside and not WHOLE_PIN.search(outside), workflow_id
        assert any(enrollment_id in text for text in inside), workflow_id  # the payloads were opened
        assert not any(WHOLE_PIN.search(text) or '"pin"' in text for text in inside), workflow_id


async def test_a_line_without_a_pin_gets_one_once(shared_stack):
    enrollment_id = await shared_stack.new_enrollment_id()
    created = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id)))
    assert created["msg_code"] == "RESTAPI000", created
    async with shared_stack.db.transaction() as session:  # as a line made before PINs were
        stored = (await session.exec(select(Line).where(Line.enrollment_id == enrollment_id))).one()
        stored.pin = None
        session.add(stored)
    first = await shared_stack.call("/customer", body("customer_info", enrollment_id=enrollment_id))
    pin = first["data"][0]["pin"]
    assert len(pin) == 4 and pin.isdigit()
    again = await shared_stack.call("/customer", body("customer_info", enrollment_id=enrollment_id))
    assert again["data"][0]["pin"] == pin
    repeated = await shared_stack.call("/customer", create(enrollment_id, line(enrollment_id)))
    assert repeated["data"][0]["data"]["pin"] == pin
