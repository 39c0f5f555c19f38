"""bench.actions counts Temporal Cloud's billable actions as https://docs.temporal.io/cloud/actions states them,
on the recorded histories of tests/workflows/histories. Each expected count is worked out by hand from the
history's events in the comment above it (event ids in brackets)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.actions import Actions, count, count_all, polls, workflow_tasks, workflow_type

HISTORIES = Path(__file__).resolve().parents[1] / "workflows" / "histories"


def recorded(name: str) -> dict[str, Any]:
    history: dict[str, Any] = json.loads((HISTORIES / f"{name}.json").read_text())
    return history


def test_a_new_activation_line() -> None:
    # LineWorkflow: started [1] = 1; workflow task [4] recorded markers [5, 7] = 1; task [14] recorded [15]
    # (local activity) and [17] (patch) = 1; upserts [6, 8, 16] = 3, [18] sets only TemporalChangeVersion = 0;
    # activate_line scheduled [9] = 1, started at attempt 1 = no retry. 1 + 1 + 1 + 3 + 1 = 7.
    found = count(recorded("line_new_activation_steps_apart"))
    assert found == Actions(starts=1, activities=1, local_activity_tasks=2, upserts=3, heartbeating=1)
    assert found.total == 7
    assert workflow_type(recorded("line_new_activation_steps_apart")) == "LineWorkflow"


def test_a_new_activation_line_in_one_step() -> None:
    # Since issue 20 (LineStart.one_step): started = 1; activate_and_record = 1 (its shipment, ACTIVATING, the
    # activation and its record); one upsert, ACTIVE with the MDN = 1; no marker (no local activity, no patch).
    found = count(recorded("line_new_activation"))
    assert found == Actions(starts=1, activities=1, upserts=1, heartbeating=1)
    assert count_all([recorded("enrollment_one_line"), recorded("line_new_activation")]).total == 5 + 3


def test_its_enrollment() -> None:
    # EnrollmentWorkflow: started [1] = 1 (its search attributes are part of the start); update accepted [5] = 1;
    # markers [6, 7] of task [4] = 1; [8] TemporalChangeVersion only = 0; child start initiated [9] = 1 (the
    # child's own start, in its history, is the other); timer [10] = 1. 1 + 1 + 1 + 1 + 1 = 5, so a 1-line
    # NEWACTIVATION enrollment is 5 + 7 = 12.
    found = count(recorded("enrollment_one_line_steps_apart"))
    assert found == Actions(starts=1, child_starts=1, local_activity_tasks=1, timers=1, updates=1)
    steps_apart = [recorded("enrollment_one_line_steps_apart"), recorded("line_new_activation_steps_apart")]
    assert count_all(steps_apart).total == 12


def test_a_signal_counts_where_it_lands() -> None:
    # Two lines: started [1], update [5], markers of task [4] = 1, [8] = 0, child starts [9, 10] = 2, timer [11],
    # and the line's line_progress signal received [17] = 1. 1 + 1 + 1 + 2 + 1 + 1 = 7.
    found = count(recorded("enrollment_two_lines_one_stuck"))
    assert (found.signals, found.child_starts, found.total) == (1, 2, 7)


def test_a_port_in_line() -> None:
    # LineWorkflow (PORTIN): started [1] = 1; markers of tasks [4] ([5, 7]), [14] ([15, 16]), [31] ([32]) = 3;
    # upserts [6, 8, 17, 33] = 4; submit_port [9] = 1; child start [23] = 1; signals sent [18, 34] = 0 here
    # (each counts once, in the enrollment's history where it lands). 1 + 3 + 4 + 1 + 1 = 10.
    found = count(recorded("line_port_in_steps_apart"))
    assert found == Actions(starts=1, child_starts=1, activities=1, local_activity_tasks=3, upserts=4, heartbeating=1)
    assert found.total == 10


def test_a_port_in_line_in_one_step() -> None:
    # Since issue 20: started 1; submit_and_record 1 (shipment, ACTIVATING, submission, its record, PORT_PENDING);
    # child start 1; record_activation's marker 1; upserts PORT_PENDING and ACTIVE 2. 10 → 6.
    found = count(recorded("line_port_in"))
    assert found == Actions(starts=1, child_starts=1, activities=1, local_activity_tasks=1, upserts=2, heartbeating=1)
    assert found.total == 6


def test_a_port_polled_to_completion() -> None:
    # PortStatusWorkflow: started [1] = 1; four polls, each a timer [5, 17, 29, 41], a port_status activity
    # [10, 22, 34, 46] at attempt 1, and a recorded status in its own workflow task [16, 28, 40, 52]: 4 × 3 = 12.
    # 13 actions over 4 polls.
    history = recorded("port_status_completed_by_timer")
    assert count(history) == Actions(starts=1, activities=4, local_activity_tasks=4, timers=4)
    assert (count(history).total, polls(history)) == (13, 4)


def test_a_one_step_lines_port_polls_by_retries_without_a_marker() -> None:
    # Started by a one-step line (PortWatch.by_retry=True): no patch marker; two watch_port activities, six polls
    # in all (the attempts): 1 + 2 + 4 retries = 7.
    history = recorded("port_status_completed")
    assert count(history) == Actions(starts=1, activities=2, retries=4)
    assert (count(history).total, polls(history)) == (7, 6)


def test_a_port_polled_by_retries_to_completion() -> None:
    # By POLL_BY_RETRY: started [1] 1, the patch marker [5] 1 ([6] TemporalChangeVersion: 0), a watch_port [7]
    # whose 4th attempt saw CONFIRMED (1 + 3 retries), then one [13] whose 3rd saw COMPLETED (1 + 2 retries):
    # 9 actions over 7 polls, no timer, no record of an unchanged poll.
    history = recorded("port_status_completed_by_retry")
    counted = count(history)
    assert (counted.total, counted.timers, counted.local_activity_tasks, polls(history)) == (9, 0, 1, 7)


def test_a_pushed_port() -> None:
    # Started 1, the marker 1, the first watch (1 attempt, then waiting an hour), the push's signal 1 (the
    # waiting watch cancelled: not billed), a watch at once that finds COMPLETED 1: 5 actions in all.
    history = recorded("port_status_pushed")
    assert (count(history).total, count(history).signals, polls(history)) == (5, 1, 2)


@pytest.mark.parametrize(
    ("name", "total"),
    [
        ("device_check", 2),  # started [1] + device_compatibility [5]
        ("line_inquiry", 2),  # started [1] + line_inquiry [5]
        ("nlad_check", 2),  # started [1] + check_and_record [5] (no patch marker since issue 20)
    ],
)
def test_lookups(name: str, total: int) -> None:
    assert count(recorded(name)).total == total


def test_workflow_tasks_are_the_tasks_a_worker_was_handed() -> None:
    # The line: WORKFLOW_TASK_STARTED [3] (its start) and [9] (its activity's result) = 2. Its enrollment: [3]
    # (start and update), [13] (the child started), [17] (the child's result) = 3: 5 for a 1-line enrollment.
    assert workflow_tasks(recorded("line_new_activation")) == 2
    assert workflow_tasks(recorded("enrollment_one_line")) == 3


def event(event_id: int, kind: str, **attributes: Any) -> dict[str, Any]:
    return {"eventId": str(event_id), "eventType": f"EVENT_TYPE_{kind}", "testEventAttributes": attributes}


def test_what_no_recorded_history_shows() -> None:
    """Retries, a scheduled start, local-activity retries, a reset, and a continue-as-new chain."""
    first = {
        "events": [
            event(1, "WORKFLOW_EXECUTION_STARTED", searchAttributes={"indexedFields": {"TemporalScheduledById": {}}}),
            event(5, "ACTIVITY_TASK_SCHEDULED", activityType={"name": "port_status"}),
            event(6, "ACTIVITY_TASK_STARTED", scheduledEventId="5", attempt=3),  # 2 retries
            event(8, "WORKFLOW_TASK_COMPLETED", meteringMetadata={"nonfirstLocalActivityExecutionAttempts": 2}),
            event(9, "MARKER_RECORDED", workflowTaskCompletedEventId="8"),
            event(10, "WORKFLOW_TASK_FAILED", cause="WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW"),
            event(11, "WORKFLOW_EXECUTION_CONTINUED_AS_NEW"),  # the next run's start counts, not this
        ]
    }
    second = {"events": [event(1, "WORKFLOW_EXECUTION_STARTED"), event(5, "TIMER_STARTED")]}
    assert count(first) == Actions(
        starts=1, schedules=2, activities=1, retries=2, local_activity_tasks=1, local_retries=2, other=1
    )
    assert count_all([first, second]).total == 10 + 2
    assert polls(first) == 1
