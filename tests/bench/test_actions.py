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


def test_a_one_line_enrollment_activated_by_its_first_try() -> None:
    # EnrollmentWorkflow: started [1] = 1 (its search attributes are part of the start); update accepted [5] = 1;
    # the first try's local activity, marker [6] of workflow task [4] = 1; the line's statuses upserted [7] = 1.
    # Its line is done in it: no child, no workflow of the line's own. 1 + 1 + 1 + 1 = 4 for a one-line
    # NEWACTIVATION enrollment (5 with its line's workflow before issue 36, 12 before issue 25).
    found = count(recorded("enrollment_one_line"))
    assert found == Actions(starts=1, upserts=1, local_activity_tasks=1, updates=1)
    assert found.total == 4
    assert workflow_type(recorded("enrollment_one_line")) == "EnrollmentWorkflow"


def test_local_activities_of_one_workflow_task_are_one_action() -> None:
    # Two lines: started [1], update [5], markers [6] (both lines' activations) and [7] (the refused one's STUCK) of
    # task [4] = 1, the statuses' upsert [8] = 1, the stuck line's child start [9] = 1 (the line activated at once
    # has none). 1 + 1 + 1 + 1 + 1 = 5.
    found = count(recorded("enrollment_two_lines_one_stuck"))
    assert (found.local_activity_tasks, found.child_starts, found.upserts, found.total) == (1, 1, 1, 5)


def test_a_port_polled_by_retries_to_completion() -> None:
    # PortInWorkflow: started [1] = 1; upsert PORT_PENDING [5] = 1; watch_port [6] whose 3rd attempt [7] saw
    # CONFIRMED (1 + 2 retries), then one [12] whose 3rd [13] saw COMPLETED (1 + 2 retries); the record's local
    # activity, marker [18] of task [17] = 1; upsert ACTIVE with the MDN [19] = 1. 1 + 1 + 6 + 1 + 1 = 10 actions
    # over 6 polls, no timer.
    history = recorded("port_in_completed")
    assert count(history) == Actions(starts=1, activities=2, retries=4, local_activity_tasks=1, upserts=2)
    assert (count(history).total, polls(history), count(history).timers) == (10, 6, 0)


def test_a_signal_counts_where_it_lands() -> None:
    # A pushed port: started [1], upsert [5], the first watch [6] (waiting), the carrier's push signal [7] = 1, the
    # waiting watch cancelled [11, 13] (not billed again), a watch at once [12] that finds COMPLETED at attempt 1
    # [17], the record's marker [22], upsert [23]: 1 + 1 + 1 + 1 + 1 + 1 + 1 = 7 over 2 polls.
    history = recorded("port_in_pushed")
    assert (count(history).total, count(history).signals, polls(history)) == (7, 1, 2)


def test_a_port_still_polling() -> None:
    # Recorded while its first watch waits: started [1], upsert [5], watch_port scheduled [6] = 3.
    history = recorded("port_in_polling")
    assert (count(history).total, count(history).activities, polls(history)) == (3, 1, 1)


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
    # A 1-line enrollment activated at once: [3] (start, update, the first try, the upsert and its end) = 1, and no
    # line workflow's (3 in all before issue 36). The polled port: [3], [10], [16] = 3.
    assert workflow_tasks(recorded("enrollment_one_line")) == 1
    assert workflow_tasks(recorded("port_in_completed")) == 3


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
