"""Statements and transactions per call, the API's and the worker's together (issue 25): a one-line create from
the request to its line's workflow's end, and support's retry of a stuck line from the request to its
activation. Counted through SQLAlchemy's events on every engine of the process (tests/support/statements.py)."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.builders import body, create, line, new_iccid
from tests.support.lines import SUPPORT, wait_for
from tests.support.statements import counted
from tests.support.stuck_lines import PACED, stuck_on_a_sim_in_use

CREATE_STATEMENTS, CREATE_TRANSACTIONS = 16, 4
RETRY_STATEMENTS = 8


async def workflow_ended(stack, workflow_id: str) -> None:
    await asyncio.wait_for(stack.env.client.get_workflow_handle(workflow_id).result(), timeout=30)


async def test_a_one_line_create_is_at_most_16_statements_in_4_transactions(stack):
    parent = await stack.new_enrollment_id()
    request = create(parent, line(parent))
    token = await stack.token()
    with counted() as seen:
        answer = (await stack.post("/customer", request, token=token)).json()
        assert answer["msg_code"] == "RESTAPI000" and answer["data"][0]["data"]["mdn"], answer
        await workflow_ended(stack, f"line-{parent}")
    print(f"\none-line create: {len(seen.work())} statements in {seen.transactions} transactions:", *seen.texts, sep="\n")
    assert seen.transactions <= CREATE_TRANSACTIONS, seen.statements
    assert len(seen.work()) <= CREATE_STATEMENTS, seen.statements


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_a_support_retry_is_at_most_8_statements(stack):
    sim = new_iccid()
    stuck = await stuck_on_a_sim_in_use(stack, sim)
    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})  # the retry goes through
    token = await stack.token()
    with counted() as seen:
        answer = (
            await stack.post("/ops", body("retry_enrollment", enrollment_id=stuck, **SUPPORT), token=token)
        ).json()
        assert answer["msg_code"] == "RESTAPI000", answer
        await wait_for(stack, [stuck], {"ACTIVE"})
    print(f"\nsupport retry: {len(seen.work())} statements in {seen.transactions} transactions: {seen.statements}")
    assert len(seen.work()) <= RETRY_STATEMENTS, seen.statements
