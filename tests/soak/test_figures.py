"""Create answers are told apart by what was going on: within 30 s after each kind of kill, in the carrier outage,
or outside all of them, where the p99 goal applies."""

from __future__ import annotations

from soak.channel import Attempt, Order
from soak.figures import OUTSIDE, latencies
from soak.load import Event, Run
from soak.options import Options

T0 = 1_000_000.0


def run_with(attempts: list[Attempt], events: list[Event]) -> Run:
    order = Order(1, 0, 1, attempts=attempts)
    return Run(started=T0, ended=T0 + 600, orders=[order], events=events)


def by_label(run: Run) -> dict[str, tuple[int, int, float | None]]:
    return {row.label: (row.answered, row.unanswered, row.max) for row in latencies(run, 30)}


def test_each_call_counts_in_the_windows_it_overlaps_and_the_rest_is_outside():
    events = [
        Event(T0 + 100, "kill-worker", ""),
        Event(T0 + 200, "kill-api", ""),
        Event(T0 + 300, "outage-start", ""),
        Event(T0 + 320, "outage-end", ""),
    ]
    attempts = [
        Attempt(T0 + 10, 0.5, True, ""),  # outside
        Attempt(T0 + 98, 8.0, True, ""),  # began before the worker kill, slowed by it
        Attempt(T0 + 129, 1.0, True, ""),  # the last second of the worker's window
        Attempt(T0 + 205, None, False, ""),  # no answer after the API kill
        Attempt(T0 + 345, 6.0, True, ""),  # within 30 s after the outage ended
        Attempt(T0 + 400, 2.0, True, ""),  # outside
    ]
    found = by_label(run_with(attempts, events))
    assert found["all create calls"] == (5, 1, 8.0)
    assert found["≤30 s after kill-worker"] == (2, 0, 8.0)
    assert found["≤30 s after kill-api"] == (0, 1, None)
    assert found["≤30 s after kill-temporal"] == (0, 0, None)
    assert found["carrier outage (+30 s)"] == (1, 0, 6.0)
    assert found[OUTSIDE] == (2, 0, 2.0)


def test_kills_come_in_turn_from_half_a_period_and_the_outage_from_a_third_of_the_run():
    options = Options(minutes=10, kill_every=60, outage_seconds=120)
    kills = options.kill_times()
    assert len(kills) == 10 and kills[0] == (30.0, "worker") and kills[-1] == (570.0, "api")
    assert [kind for _, kind in kills[:5]] == ["worker", "api", "temporal", "postgres", "worker"]
    assert options.outage() == (200.0, 320.0)
    # Issue 27: the soak's own PostgreSQL is restarted in turn, and a server it was given never is.
    given = Options(minutes=10, kill_every=60, postgres="postgresql://postgres@127.0.0.1:5432/test")
    assert [kind for _, kind in given.kill_times()[:4]] == ["worker", "api", "temporal", "worker"]
    assert [kind for _, kind in Options().kill_times()] == ["worker", "api", "temporal", "postgres"]  # make soak
    assert Options(kill_every=0, outage_seconds=0).kill_times() == [] and Options(outage_seconds=0).outage() is None
