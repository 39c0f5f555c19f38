"""Statements and transactions per call, the API's and the worker's together (issue 25): a one-line create from
the request to its order's workflow's end, and support's retry of a stuck line from the request to its
activation. Counted through SQLAlchemy's events on every engine of the process (tests/support/statements.py)."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.service import RPCError

from tests.support.builders import body, create, line, new_iccid
from tests.support.lines import SUPPORT, wait_for
from tests.support.statements import counted
from tests.support.stuck_lines import PACED, stuck_on_a_sim_in_use
from workflows.enrollment import enrollment_workflow_id

CREATE_STATEMENTS, CREATE_TRANSACTIONS = 16, 4
RETRY_STATEMENTS = 10


async def workflow_ended(stack, workflow_id: str) -> None:
    """Once the workflow has run to its end (a moment after the answer)."""
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
        await workflow_ended(stack, enrollment_workflow_id(parent, [parent]))  # its line is done in it
    # Left out: the worker's webhook dispatcher polls meanwhile, and the line password's argon2 hash, which the
    # API writes after the answer in a transaction of its own (a SELECT and an UPDATE; it may land in the window).
    seen = seen.without("FROM webhook_delivery").without("SET password_hash")
    print(
        f"\none-line create: {len(seen.work())} statements in {seen.transactions} transactions:", *seen.texts, sep="\n"
    )
    assert seen.transactions <= CREATE_TRANSACTIONS, seen.texts
    assert len(seen.work()) <= CREATE_STATEMENTS, seen.texts


async def test_a_ten_line_create_is_as_many_statements_and_transactions_as_a_one_line_one(stack):
    """Issue 36: intake, the lines' first tries and the answer write and read each kind of row in one statement
    for all the lines (their activations in one local activity: ACTIVATING in one statement, recorded in one)."""
    seen = {}
    for lines in (1, 10):
        ids = [await stack.new_enrollment_id() for _ in range(lines)]
        token = await stack.token()
        with counted() as counting:
            answer = (await stack.post("/customer", create(ids[0], *(line(i) for i in ids)), token=token)).json()
            assert [entry["data"]["mdn"] is not None for entry in answer["data"]] == [True] * lines, answer
            await workflow_ended(stack, enrollment_workflow_id(ids[0], ids))
        seen[lines] = counting.without("FROM webhook_delivery").without("SET password_hash")
    print("\nten-line create:", *seen[10].texts, sep="\n")
    assert len(seen[10].work()) == len(seen[1].work()), seen[10].texts
    assert seen[10].transactions == seen[1].transactions


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
