"""Tax quotes during a carrier outage (issue 35, item 12): each make_payment waited out the whole lookup budget
before it used the rates Lineup holds. After LINEUP_TAX_BREAKER_FAILURES unanswered quotes in a row the carrier is
not asked for LINEUP_TAX_BREAKER_COOLDOWN_SECONDS: payments are quoted from held rates at once; then one call
tries the carrier again, and its answer closes the breaker."""

from __future__ import annotations

import time
from typing import Any

import pytest

from api.payment import QuoteBreaker
from tests.support.builders import body

BUDGET = 3.0
BREAKER = {"lookup_budget_seconds": BUDGET, "tax_breaker_failures": 2, "tax_breaker_cooldown_seconds": 60.0}


async def timed_payment(stack: Any) -> tuple[dict[str, Any], float]:
    request = body("make_payment", enrollment_id=await stack.new_enrollment_id())
    began = time.perf_counter()
    answer: dict[str, Any] = await stack.call("/payment", request)
    return answer, time.perf_counter() - began


@pytest.mark.parametrize("settings_overrides", [BREAKER])
async def test_make_payment_after_the_breaker_opens_answers_well_within_the_budget(stack):
    held, _ = await timed_payment(stack)  # the carrier up: its rate for the plan is held
    assert held["msg_code"] == "RESTAPI000", held
    await stack.faults(fault_rate=1.0)
    try:
        waited = [await timed_payment(stack) for _ in range(2)]  # each waits out the budget, then held rates
        quick = [await timed_payment(stack) for _ in range(2)]
    finally:
        await stack.faults(fault_rate=0)
    for answer, _seconds in waited + quick:
        assert answer["msg_code"] == "RESTAPI000", answer
        assert answer["data"]["calc_id"].startswith("LX")  # quoted from held rates, registered later
    seconds = [seconds for _answer, seconds in waited + quick]
    # The carrier's retries end when the next would pass the budget: a quote it leaves unanswered takes most of it.
    assert all(spent >= BUDGET / 2 for spent in seconds[:2]), seconds
    assert all(spent < BUDGET / 4 for spent in seconds[2:]), seconds


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_breaker_opens_after_the_threshold_tries_once_after_the_cooldown_and_closes_on_an_answer():
    clock = Clock()
    breaker = QuoteBreaker(clock)
    for _ in range(2):
        assert breaker.allows(30)
        breaker.unanswered(3)
        breaker.settled()
    assert breaker.allows(30)
    breaker.unanswered(3)  # the third in a row: open
    breaker.settled()
    assert not breaker.allows(30)
    clock.now += 29
    assert not breaker.allows(30)
    clock.now += 2
    assert breaker.allows(30)  # the one trial
    assert not breaker.allows(30)  # the others meanwhile: held rates
    breaker.unanswered(3)  # the trial unanswered: open again for a whole cool-down
    breaker.settled()
    clock.now += 29
    assert not breaker.allows(30)
    clock.now += 2
    assert breaker.allows(30)
    breaker.answered()
    breaker.settled()
    assert breaker.allows(30) and breaker.allows(30)  # closed: every call asks the carrier
    breaker.unanswered(3)
    assert breaker.allows(30)  # one failure after closing does not open it
