"""Statements and transactions per call, the API's and the worker's together (issue 25): a one-line create from
the request to its line's workflow's end, and support's retry of a stuck line from the request to its
activation. Counted through SQLAlchemy's events on every engine of the process (tests/support/statements.py)."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.service import RPCError

from tests.support.builders import body, create, line, new_iccid
from tests.support.lines import SUPPORT, wait_for
from tests.support.statements import counted
from tests.support.stuck_lines import PACED, stuck_on_a_sim_in_use

CREATE_STATEMENTS, CREATE_TRANSACTIONS = 16, 4
RETRY_STATEMENTS = 10


async def workflow_ended(stack, workflow_id: str) -> None:
    """Once the workflow has run to its end (its order starts it a moment after the answer)."""
    handle = stack.env.client.get_workflow_handle(workflow_id)
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        try:
            await handle.result()
            return
        except RPCError:  # not started yet
            assert asyncio.get_running_loop().time() < deadline, workflow_id
            await asyncio.sleep(0.05)


async def test_a_one_line_create_is_at_most_16_statements_in_4_transactions(stack):
    parent = await stack.new_enrollment_id()
    request = create(parent, line(parent))
    token = await stack.token()
    with counted() as seen:
        answer = (await stack.post("/customer", request, token=token)).json()
        assert answer["msg_code"] == "RESTAPI000" and answer["data"][0]["data"]["mdn"], answer
        await workflow_ended(stack, f"line-{parent}")
    # Left out: the worker's webhook dispatcher polls meanwhile, and the line password's argon2 hash, which the
    # API writes after the answer in a transaction of its own (a SELECT and an UPDATE; it may land in the window).
    seen = seen.without("FROM webhook_delivery").without("SET password_hash")
    print(
        f"\none-line create: {len(seen.work())} statements in {seen.transactions} transactions:", *seen.texts, sep="\n"
    )
    assert seen.transactions <= CREATE_TRANSACTIONS, seen.texts
    assert len(seen.work()) <= CREATE_STATEMENTS, seen.texts


@pytest.mark.parametrize("settings_overrides", [PACED])
async def test_a_support_retry_is_at_most_10_statements_in_the_api(stack):
    """The request: support's API password (its throttle's claim and settlement, issue 35: support gives it on every
    call), its claim of the stuck line (STUCK → RETRYING) with its event, the token's chain, its audit;
    the worker's retried activation is two statements more and the record's three (printed)."""
    sim = new_iccid()
    stuck = await stuck_on_a_sim_in_use(stack, sim)
    await stack.sandbox_post("/sandbox/carrier/release-sim", {"iccid": sim})  # the retry goes through
    token = await stack.token()
    assert stack.db.engine is not None
    with counted() as seen:
        request = body("retry_enrollment", enrollment_id=stuck, **SUPPORT)
        answer = (await stack.post("/ops", request, token=token)).json()
        assert answer["msg_code"] == "RESTAPI000", answer
        # The request's own (the worker's engine is another), without the hash of the stuck line's password that
        # its create left to a background task (it may land here on a busy machine).
        api = seen.without("SET password_hash").of(stack.db.engine)
        await wait_for(stack, [stuck], {"ACTIVE"})  # the test's reads are the API engine's: left out below
    worker = seen.without("FROM webhook_delivery").of(stack.db.engine, others=True)
    shown = f"the API {len(api.work())} statements, the worker {len(worker.work())} in {worker.transactions}"
    print(f"\nsupport retry: {shown}:", *api.texts, "--- the worker:", *worker.texts, sep="\n")
    assert len(api.work()) <= RETRY_STATEMENTS, api.texts
