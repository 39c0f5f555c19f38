"""TaxRegistrationWorkflow alone on the time-skipping server, `register_held_tax` a stand-in under the real name
(issue 27, finding 15): a calculation quoted from held rates is registered however long the carrier stays down,
retried from a second, doubling, at most every five minutes; the carrier's refusal ends it."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from models.envelope import CARRIER_REJECTED, UNAVAILABLE
from models.payment import TaxRegistrationJob
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from workflows.payment import TaxRegistrationWorkflow, tax_registration_workflow_id

JOB = TaxRegistrationJob("LX0123456789ABCDEF012345")


async def register(env, carrier) -> tuple[Calls, str]:
    calls, queue = Calls(env), fresh_queue("taxreg")
    activity = stand_in("register_held_tax", calls, carrier, takes=[TaxRegistrationJob], gives=str)
    async with worker(env, queue, workflows=[TaxRegistrationWorkflow], activities=[activity]):
        result: str = await env.client.execute_workflow(
            TaxRegistrationWorkflow.run, JOB, id=tax_registration_workflow_id(JOB.calc_id), task_queue=queue
        )
    return calls, result


async def test_a_carrier_down_for_hours_registers_the_calculation_once_it_is_back(time_skipping):
    began = await time_skipping.get_current_time()

    async def carrier(_: TaxRegistrationJob) -> str:
        if await time_skipping.get_current_time() - began < timedelta(hours=3):
            raise ApplicationError("HTTP 503", type=UNAVAILABLE)
        return "TX0000000042"

    calls, result = await register(time_skipping, carrier)
    assert result == "TX0000000042"
    times = [call.at for call in calls.seen]
    gaps = [round((later - earlier).total_seconds()) for earlier, later in itertools.pairwise(times)]
    # From a second to five minutes, never more (an attempt's own run adds a moment on a busy machine).
    assert gaps[:4] == [1, 2, 4, 8] and 300 <= max(gaps) <= 305
    assert calls.of("register_held_tax")[-1] == (JOB,)


async def test_the_carriers_refusal_ends_it(time_skipping):
    async def carrier(_: TaxRegistrationJob) -> str:
        raise ApplicationError("905 Unknown state", type=CARRIER_REJECTED, non_retryable=True)

    with pytest.raises(WorkflowFailureError):
        await register(time_skipping, carrier)
