"""The lookups a channel waits on, each workflow alone on the time-skipping server with a stand-in activity
under the real name: LineInquiryWorkflow, CarrierListWorkflow, NladCheckWorkflow, DeviceCheckWorkflow,
TaxQuoteWorkflow, TaxEstimateWorkflow, PortValidationWorkflow, EsimAssignmentWorkflow. Their contract: the
outside system's answer passed through from one activity called with the request; a passing fault retried; a
rejection final at once; an outage answered within the request's own budget (LINEUP_LOOKUP_BUDGET_SECONDS) —
seconds of backoff the server skips."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError

from models.devices import DeviceQuery, DeviceReply
from models.eligibility import NladAnswer, NladCheck
from models.enrollment.lines import (
    CarrierItem,
    CarrierList,
    CarrierListQuery,
    EsimAssigned,
    EsimRequest,
    InquiryRequest,
    LineInquiryAnswer,
)
from models.envelope import CARRIER_REJECTED, NOT_FOUND, UNAVAILABLE
from models.payment import TaxEstimate, TaxEstimateQuery, TaxLine, TaxQuote, TaxQuoted
from models.porting import PortCheck, PortEligibilityReply
from tests.support.alone import Calls, fresh_queue, stand_in, worker
from workflows.devices import DeviceCheckWorkflow
from workflows.eligibility import NladCheckWorkflow
from workflows.enrollment import CarrierListWorkflow, EsimAssignmentWorkflow, LineInquiryWorkflow
from workflows.payment import TaxEstimateWorkflow, TaxQuoteWorkflow
from workflows.porting import PortValidationWorkflow

BUDGET = 7.0  # not the default 10 s: an outage ending within it shows the request's own budget is used
IMEI = "352099081234560"


@dataclass(frozen=True)
class Case:
    workflow: type
    run: Callable[..., Any]
    activity: str
    request: object
    takes: type
    answer: object
    called_with: object = None  # what the activity receives, when not the request itself

    def argument(self) -> object:
        return self.request if self.called_with is None else self.called_with


CASES = [
    Case(LineInquiryWorkflow, LineInquiryWorkflow.run, "line_inquiry",
         InquiryRequest("E1", "DEMO", query_sim_info=True, budget_seconds=BUDGET), InquiryRequest,
         LineInquiryAnswer("00", "Line found", mdn="4045550178", talk_balance=12.5)),
    Case(CarrierListWorkflow, CarrierListWorkflow.run, "carriers", CarrierListQuery("DEMO", budget_seconds=BUDGET),
         str, CarrierList([CarrierItem("4", "TMB", "T-Mobile"), CarrierItem("5", "ATT", "AT&T")]), "DEMO"),
    Case(NladCheckWorkflow, NladCheckWorkflow.run, "check_and_record",
         NladCheck("nlad-r1", 7, "sealed-subject", "E1", "demo.agent", budget_seconds=BUDGET), NladCheck,
         NladAnswer("SUBSCRIBER_NOT_FOUND")),
    Case(DeviceCheckWorkflow, DeviceCheckWorkflow.run, "device_compatibility",
         DeviceQuery(IMEI, "ATT", budget_seconds=BUDGET), DeviceQuery,
         DeviceReply("00", "Device is compatible", IMEI, volte_compatible="Y")),
    Case(TaxQuoteWorkflow, TaxQuoteWorkflow.run, "register_tax",
         TaxQuote("DEMO", "GA", 2500, idempotency_key="pay-1", budget_seconds=BUDGET), TaxQuote,
         TaxQuoted(175, calc_id="TX1")),
    Case(TaxEstimateWorkflow, TaxEstimateWorkflow.run, "tax_estimate",
         TaxEstimateQuery("DEMO", "GA", 2500, budget_seconds=BUDGET), TaxEstimateQuery,
         TaxEstimate(175, [TaxLine("State tax", 175)])),
    Case(PortValidationWorkflow, PortValidationWorkflow.run, "validate_port",
         PortCheck("DEMO", "4045551234", "30301", budget_seconds=BUDGET), PortCheck,
         PortEligibilityReply("4045551234", True, "TMB", "T-Mobile")),
    Case(EsimAssignmentWorkflow, EsimAssignmentWorkflow.run, "assign_esim_profile",
         EsimRequest("E1", "DEMO", budget_seconds=BUDGET), EsimRequest, EsimAssigned(reserved=True)),
]  # fmt: skip
IDS = [case.workflow.__name__ for case in CASES]


def failing(kind: str, times: int | float, answer: object) -> Callable[..., Any]:
    """Raises an ApplicationError of `kind` for the first `times` calls, then answers."""
    left = [times]

    async def respond(*_args: Any) -> object:
        if left[0] > 0:
            left[0] -= 1
            raise ApplicationError(f"{kind}: the outside system said so", type=kind)
        return answer

    return respond


async def run_lookup(env, case: Case, respond: Callable[..., Any]) -> tuple[Calls, Any]:
    """The lookup's workflow on a worker of its own with only its stand-in activity; its result (or failure)."""
    calls, queue = Calls(env), fresh_queue("lookup")
    activity = stand_in(case.activity, calls, respond, takes=[case.takes], gives=type(case.answer))
    async with worker(env, queue, workflows=[case.workflow], activities=[activity]):
        try:
            return calls, await env.client.execute_workflow(case.run, case.request, id=queue, task_queue=queue)
        except WorkflowFailureError as failure:
            return calls, failure


def carrier_error(outcome: Any) -> ApplicationError:
    assert isinstance(outcome, WorkflowFailureError), outcome
    assert isinstance(outcome.cause, ActivityError), outcome.cause
    assert isinstance(outcome.cause.cause, ApplicationError), outcome.cause.cause
    return outcome.cause.cause


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_the_answer_is_the_one_activitys_reply_to_the_request(time_skipping, case):
    calls, result = await run_lookup(time_skipping, case, failing(UNAVAILABLE, 0, case.answer))
    assert result == case.answer
    assert calls.names() == [case.activity] and calls.of(case.activity) == [(case.argument(),)]


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_a_passing_fault_is_retried_and_answered(time_skipping, case):
    calls, result = await run_lookup(time_skipping, case, failing(UNAVAILABLE, 2, case.answer))
    assert result == case.answer
    assert len(calls.of(case.activity)) == 3
    assert calls.span(case.activity) < timedelta(seconds=2)  # backoff from 300 ms


@pytest.mark.parametrize("kind", [CARRIER_REJECTED, NOT_FOUND])
@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_a_rejection_is_final_at_once(time_skipping, case, kind):
    calls, outcome = await run_lookup(time_skipping, case, failing(kind, 1, case.answer))
    error = carrier_error(outcome)
    assert (error.type, error.message) == (kind, f"{kind}: the outside system said so")
    assert len(calls.of(case.activity)) == 1


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_an_outage_is_answered_within_the_requests_budget(time_skipping, case):
    calls, outcome = await run_lookup(time_skipping, case, failing(UNAVAILABLE, float("inf"), case.answer))
    assert carrier_error(outcome).type == UNAVAILABLE  # the channel hears the outage, not a hang
    assert len(calls.of(case.activity)) >= 5  # retried throughout…
    # …the last attempt within the budget, and not long before its end (backoff capped at 2 s).
    assert timedelta(seconds=BUDGET - 2.5) <= calls.span(case.activity) <= timedelta(seconds=BUDGET)
