"""TaxCollectionWorkflow alone on the time-skipping server, `load_tax`, `collect_tax` and `record_tax` stand-ins
under the real names. Its contract (update_tax_calculation_status_plum): `temporary` collects provisionally,
again or then final, each collection under a key of its own; `final` collects, is recorded and ends the
workflow, a `final` repeated meanwhile answering the same reference without collecting again; `temporary` after `final`
and an unknown status are refused before they reach history; a carrier refusal fails that update only; left
without an update for `idle_days` the workflow ends with what it has."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowExecutionStatus, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ActivityError, ApplicationError

from models.envelope import CARRIER_REJECTED
from models.payment import CollectTax, MarkCollected, TaxCollect, TaxReceipt, TaxState
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from workflows.payment import TaxCollectionWorkflow

ICCID = "890126096321234567"
STATUS_OF = {"temporary": TaxState.COLLECTED_TEMPORARY, "final": TaxState.COLLECTED_FINAL}


class Carrier:
    """The stored calculation and the carrier's collections: a reference per collection, refused on demand."""

    def __init__(self, env, stored: TaxState = TaxState.PENDING_COLLECTION) -> None:
        self.calls, self.stored, self.refuse, self.slow = Calls(env), stored, False, False
        self.collecting = asyncio.Event()

    def activities(self) -> list[Any]:
        async def load_tax(calc_id: str) -> TaxReceipt:
            return TaxReceipt(calc_id, self.stored, "REF-STORED" if self.stored != "PENDING_COLLECTION" else None)

        async def collect_tax(collect: TaxCollect) -> TaxReceipt:
            if self.refuse:
                raise ApplicationError("Calculation TX1 is closed at the carrier", type=CARRIER_REJECTED)
            number = len(self.calls.of("collect_tax"))
            self.collecting.set()
            if self.slow:
                await asyncio.sleep(0.5)  # real time: the test server does not skip a running activity
            return TaxReceipt(collect.calc_id, STATUS_OF[collect.status], f"REF-{number}", "Collected")

        async def record_tax(receipt: TaxReceipt, iccid: str) -> None:
            return None

        return [
            stand_in("load_tax", self.calls, load_tax, takes=[str], gives=TaxReceipt),
            stand_in("collect_tax", self.calls, collect_tax, takes=[TaxCollect], gives=TaxReceipt),
            stand_in("record_tax", self.calls, record_tax, takes=[TaxReceipt, str], gives=None),
        ]


def start(env, carrier: Carrier, idle_days: float = 30.0):
    queue = fresh_queue("tax")
    running = worker(env, queue, workflows=[TaxCollectionWorkflow], activities=carrier.activities())
    collect = CollectTax("TX1", "DEMO", idle_days)

    async def begin() -> WorkflowHandle[Any, TaxReceipt]:
        handle: WorkflowHandle[Any, TaxReceipt] = await env.client.start_workflow(
            TaxCollectionWorkflow.run, collect, id="tax-TX1", task_queue=queue
        )
        return handle

    return running, begin


async def mark(handle, status: str) -> TaxReceipt:
    receipt: TaxReceipt = await handle.execute_update(
        TaxCollectionWorkflow.mark_collected, MarkCollected(ICCID, status)
    )
    return receipt


async def test_temporary_twice_then_final_each_collected_once_recorded_and_final_ends_it(time_skipping):
    carrier = Carrier(time_skipping)
    running, begin = start(time_skipping, carrier)
    async with running:
        handle = await begin()
        receipts = [await mark(handle, status) for status in ("temporary", "temporary")]
        carrier.slow = True  # a second `final` arrives while the first is still collecting
        receipts += await asyncio.gather(mark(handle, "final"), mark(handle, "final"))
        result = await handle.result()
    assert [(r.status, r.reference_number) for r in receipts] == [
        (TaxState.COLLECTED_TEMPORARY, "REF-1"),
        (TaxState.COLLECTED_TEMPORARY, "REF-2"),
        (TaxState.COLLECTED_FINAL, "REF-3"),
        (TaxState.COLLECTED_FINAL, "REF-3"),  # the same answer again
    ]
    assert result == receipts[-1]
    collected = [collect for (collect,) in carrier.calls.of("collect_tax")]
    assert [(c.calc_id, c.vendor_code, c.iccid, c.status) for c in collected] == [
        ("TX1", "DEMO", ICCID, "temporary"),
        ("TX1", "DEMO", ICCID, "temporary"),
        ("TX1", "DEMO", ICCID, "final"),
    ]
    keys = [c.key for c in collected]
    assert len(set(keys)) == 3 and all(key.startswith("tax-TX1-") for key in keys)  # a key per collection
    assert carrier.calls.of("record_tax") == [(receipt, ICCID) for receipt in receipts[:3]]
    assert carrier.calls.names()[0] == "load_tax"


async def test_an_unknown_status_is_refused_before_it_reaches_history(time_skipping):
    carrier = Carrier(time_skipping)
    running, begin = start(time_skipping, carrier)
    async with running:
        handle = await begin()
        before = await mark(handle, "temporary")
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await mark(handle, "done")
        accepted = [
            event
            async for event in handle.fetch_history_events()
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
        ]
        now = await handle.query(TaxCollectionWorkflow.status)
    assert "Status must be temporary or final" in str(refused.value.cause)
    assert len(accepted) == 1 and len(carrier.calls.of("collect_tax")) == 1  # only the first
    assert now == before


async def test_a_temporary_behind_a_final_is_refused_and_collects_nothing(time_skipping):
    carrier = Carrier(time_skipping)
    running, begin = start(time_skipping, carrier)
    async with running:
        handle = await begin()
        carrier.slow = True
        final = asyncio.create_task(mark(handle, "final"))
        await carrier.collecting.wait()  # the final is at the carrier
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await mark(handle, "temporary")
        assert (await final).status == TaxState.COLLECTED_FINAL
        assert (await handle.result()) == await final
    assert "Tax calculation TX1 is already final; a temporary collection is refused" in str(refused.value.cause)
    assert [collect.status for (collect,) in carrier.calls.of("collect_tax")] == ["final"]


async def test_a_carrier_refusal_fails_that_update_only(time_skipping):
    carrier = Carrier(time_skipping)
    running, begin = start(time_skipping, carrier)
    async with running:
        handle = await begin()
        carrier.refuse = True
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await mark(handle, "temporary")
        carrier.refuse = False
        assert (await handle.query(TaxCollectionWorkflow.status)).status == TaxState.PENDING_COLLECTION
        final = await mark(handle, "final")
        assert (await handle.result()) == final
    failure = refused.value.cause
    assert isinstance(failure, ActivityError) and isinstance(failure.cause, ApplicationError)
    assert (failure.cause.type, failure.cause.message) == (CARRIER_REJECTED, "Calculation TX1 is closed at the carrier")
    assert len(carrier.calls.of("collect_tax")) == 2 and len(carrier.calls.of("record_tax")) == 1  # no retry


async def test_left_idle_for_idle_days_it_ends_and_each_update_restarts_the_clock(time_skipping):
    carrier = Carrier(time_skipping)
    running, begin = start(time_skipping, carrier, idle_days=30)
    async with running:
        handle = await begin()
        began = await time_skipping.get_current_time()
        await mark(handle, "temporary")
        await time_skipping.sleep(timedelta(days=20))
        await mark(handle, "temporary")  # twenty days on: the idle clock starts again
        await time_skipping.sleep(timedelta(days=20))
        still = (await handle.describe()).status
        ended = await handle.result()
        described = await handle.describe()
    assert still == WorkflowExecutionStatus.RUNNING  # 40 days in, but only 20 idle
    assert (ended.status, ended.reference_number) == (TaxState.COLLECTED_TEMPORARY, "REF-2")
    assert described.close_time is not None
    assert timedelta(days=50) <= described.close_time - began < timedelta(days=51)


async def test_a_calculation_already_final_ends_at_once_with_its_stored_receipt(time_skipping):
    carrier = Carrier(time_skipping, stored=TaxState.COLLECTED_FINAL)
    running, begin = start(time_skipping, carrier)
    async with running:
        result = await (await begin()).result()
    assert result == TaxReceipt("TX1", TaxState.COLLECTED_FINAL, "REF-STORED")
    assert carrier.calls.names() == ["load_tax"]


async def test_a_final_collection_that_arrives_while_a_full_run_drains_ends_it(time_skipping):
    """A full history waits for the updates in flight before it continues as new; a `final` among them closes the
    calculation, so the run ends with it rather than starting another (which would wait, idle, for nothing)."""
    carrier = Carrier(time_skipping)
    carrier.slow = True  # the temporary collection is still running when the final one arrives
    queue = fresh_queue("tax")
    running = worker(time_skipping, queue, workflows=[TaxCollectionWorkflow], activities=carrier.activities())
    async with running:
        handle = await time_skipping.client.start_workflow(
            TaxCollectionWorkflow.run, CollectTax("TX1", "DEMO", history_events=1), id="tax-TX1", task_queue=queue
        )
        temporary = asyncio.create_task(mark(handle, "temporary"))
        await carrier.collecting.wait()
        final = await mark(handle, "final")
        await temporary
        result = await handle.result()
        status = (await handle.describe()).status
    assert result == final and final.status == TaxState.COLLECTED_FINAL
    assert status == WorkflowExecutionStatus.COMPLETED and carrier.calls.names().count("load_tax") == 1


async def test_a_calculation_collected_again_and_again_continues_as_new_before_its_history_grows(time_skipping):
    """Issue 27, finding 6: each `temporary` adds events; past the limit the workflow continues as new, its state
    loaded again from the database, and still answers."""
    carrier = Carrier(time_skipping)
    queue = fresh_queue("tax")
    running = worker(time_skipping, queue, workflows=[TaxCollectionWorkflow], activities=carrier.activities())
    async with running:
        handle = await time_skipping.client.start_workflow(
            TaxCollectionWorkflow.run, CollectTax("TX1", "DEMO", history_events=50), id="tax-TX1", task_queue=queue
        )
        first_run = handle.first_execution_run_id or (await handle.describe()).run_id
        receipts = [await mark(handle, "temporary") for _ in range(12)]
        final = await mark(handle, "final")
        result = await handle.result()
        first = time_skipping.client.get_workflow_handle("tax-TX1", run_id=first_run)
        events = [event async for event in first.fetch_history_events()]
    assert [r.reference_number for r in receipts] == [f"REF-{n}" for n in range(1, 13)]
    assert result == final and final.status == TaxState.COLLECTED_FINAL
    assert (await first.describe()).status == WorkflowExecutionStatus.CONTINUED_AS_NEW
    assert len(events) <= 50 + 15  # the limit, and the one update that crossed it
    assert carrier.calls.names().count("load_tax") >= 2  # each run loads what the last recorded
