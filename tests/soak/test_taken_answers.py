"""The soak counts the answers given to creates Lineup had taken while a kill or the outage went on (issue 35,
item 10): a create answered after its order's lines were written, within a fault's window, by what it said."""

from __future__ import annotations

from soak.channel import Attempt, Order
from soak.figures import taken_answers
from soak.load import Event, Run

T0 = 1_000_000.0
DOWN = "RESTAPI110 Error occurred ['The database is unavailable, please try again later']"
OK = "RESTAPI000 Success"


def test_only_answers_after_the_take_within_a_fault_window_are_counted_by_what_they_said():
    refused_before_the_take = Attempt(T0 + 100, 0.5, False, DOWN)  # intake never stored it: not taken yet
    taken_then_down = Attempt(T0 + 102, 6.0, False, DOWN)  # its lines written at T0 + 102.1
    repeated = Attempt(T0 + 110, 0.3, True, OK)
    blip = Order(1, 0, 1, enrollment_ids=["E1"], attempts=[refused_before_the_take, taken_then_down, repeated])
    quiet = Order(2, 0, 1, enrollment_ids=["E2"], attempts=[Attempt(T0 + 400, 0.4, True, OK)])  # outside windows
    never_written = Order(3, 0, 1, enrollment_ids=["E3"], attempts=[Attempt(T0 + 105, 1.0, False, DOWN)])
    unanswered = Order(4, 0, 1, enrollment_ids=["E4"], attempts=[Attempt(T0 + 103, None, False, "no answer")])
    run = Run(
        started=T0,
        ended=T0 + 600,
        orders=[blip, quiet, never_written, unanswered],
        events=[Event(T0 + 99, "kill-postgres", "")],
    )
    created = {"E1": T0 + 102.1, "E2": T0 + 400.1, "E4": T0 + 103.2}
    assert taken_answers(run, created, after=30) == {DOWN: 1, OK: 1}
