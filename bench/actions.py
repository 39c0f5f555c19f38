"""Temporal Cloud billable actions, counted from workflow histories (the JSON `WorkflowHistory.to_json_dict()`
gives, as tests/workflows/histories holds) by the rules Temporal publishes in "Temporal Cloud Actions",
https://docs.temporal.io/cloud/actions (docs/evaluate/cloud/actions.mdx in temporalio/documentation):

- workflow started: 1 per run, whoever started it (client, child, continue-as-new: the new run's start; the
  CONTINUED_AS_NEW event itself is not counted twice); a run started by a schedule adds the schedule's 2;
- a child workflow: 2 — the parent's START_CHILD_WORKFLOW_EXECUTION_INITIATED (the intent) here, the child's
  own start in its history (or the failed attempt, START_CHILD_WORKFLOW_EXECUTION_FAILED, in the parent's);
- an activity: 1 when scheduled, plus 1 per retry (ACTIVITY_TASK_STARTED's `attempt` − 1);
- local activities: every MARKER_RECORDED of one workflow task together is 1 (any marker: local activity,
  patch, side effect), plus WORKFLOW_TASK_COMPLETED's `meteringMetadata.nonfirstLocalActivityExecutionAttempts`;
- a timer started: 1;
- a signal: 1, counted where it lands (WORKFLOW_EXECUTION_SIGNALED) — a signal one workflow sends another is
  one action, and the page shows it in the signaled history only, so SIGNAL_EXTERNAL_..._INITIATED is 0;
- an update accepted: 1 (rejected ones never reach the history); queries: none (not in a history);
- a search-attribute upsert: 1 per command, except one that only sets TemporalChangeVersion (patching);
- workflow options updated, a reset, a Nexus operation scheduled or cancelled: 1 each.

Not in a history, so not counted here: activity heartbeats that reach the server (billable; `heartbeating`
tells how many activity attempts could have sent some), workflow-task heartbeats, queries, schedule
management calls."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

History = Mapping[str, Any]  # {"events": [...]}, one run
POLL_ACTIVITY = "port_status"  # PortStatusWorkflow's poll by timer (workflows/porting.py, before POLL_BY_RETRY)
WATCH_ACTIVITY = "watch_port"  # its poll by retries: one activity, an attempt per poll
CHANGE_VERSION = "TemporalChangeVersion"
SCHEDULED_BY = "TemporalScheduledById"
PLAIN = {
    "TIMER_STARTED": "timers", "WORKFLOW_EXECUTION_SIGNALED": "signals",
    "WORKFLOW_EXECUTION_UPDATE_ACCEPTED": "updates", "ACTIVITY_TASK_SCHEDULED": "activities",
    "START_CHILD_WORKFLOW_EXECUTION_INITIATED": "child_starts", "START_CHILD_WORKFLOW_EXECUTION_FAILED": "child_starts",
    "WORKFLOW_EXECUTION_OPTIONS_UPDATED": "other", "NEXUS_OPERATION_SCHEDULED": "other",
    "NEXUS_OPERATION_CANCEL_REQUESTED": "other",
}  # fmt: skip


@dataclass
class Actions:
    """Billable actions by kind; `total` is their sum. `heartbeating` is information only (see the module)."""

    starts: int = 0
    child_starts: int = 0
    schedules: int = 0
    activities: int = 0
    retries: int = 0
    local_activity_tasks: int = 0
    local_retries: int = 0
    timers: int = 0
    signals: int = 0
    updates: int = 0
    upserts: int = 0
    other: int = 0
    heartbeating: int = 0

    @property
    def total(self) -> int:
        return sum(getattr(self, field.name) for field in dataclasses.fields(self) if field.name != "heartbeating")

    def __add__(self, other: Actions) -> Actions:
        return Actions(*(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self)))

    def as_dict(self) -> dict[str, int]:
        return {**dataclasses.asdict(self), "total": self.total}


def kind(event: Mapping[str, Any]) -> str:
    return str(event.get("eventType", "")).removeprefix("EVENT_TYPE_")


def attributes(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """The event's one `…EventAttributes` object."""
    return next((value for name, value in event.items() if name.endswith("EventAttributes")), {})


def indexed_fields(attrs: Mapping[str, Any]) -> Mapping[str, Any]:
    fields: Mapping[str, Any] = (attrs.get("searchAttributes") or {}).get("indexedFields") or {}
    return fields


def count(history: History) -> Actions:
    """The billable actions of one run's history."""
    found = Actions()
    marker_tasks: set[str] = set()
    heartbeat_scheduled: set[str] = set()
    for event in history.get("events", []):
        name, attrs = kind(event), attributes(event)
        if name in PLAIN:
            setattr(found, PLAIN[name], getattr(found, PLAIN[name]) + 1)
        if name == "WORKFLOW_EXECUTION_STARTED":
            found.starts += 1
            found.schedules += 2 if SCHEDULED_BY in indexed_fields(attrs) else 0
        elif name == "ACTIVITY_TASK_SCHEDULED" and _seconds(attrs.get("heartbeatTimeout")) > 0:
            heartbeat_scheduled.add(str(event.get("eventId")))
        elif name == "ACTIVITY_TASK_STARTED":
            attempt = int(attrs.get("attempt", 1))
            found.retries += max(0, attempt - 1)
            if str(attrs.get("scheduledEventId")) in heartbeat_scheduled:
                found.heartbeating += attempt
        elif name == "MARKER_RECORDED":
            marker_tasks.add(str(attrs.get("workflowTaskCompletedEventId")))
        elif name == "WORKFLOW_TASK_COMPLETED":
            metering = attrs.get("meteringMetadata") or {}
            found.local_retries += int(metering.get("nonfirstLocalActivityExecutionAttempts", 0))
        elif name == "UPSERT_WORKFLOW_SEARCH_ATTRIBUTES":
            found.upserts += 0 if set(indexed_fields(attrs)) <= {CHANGE_VERSION} else 1
        elif name == "WORKFLOW_TASK_FAILED" and attrs.get("cause") == "WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW":
            found.other += 1
    found.local_activity_tasks = len(marker_tasks)
    return found


def _seconds(duration: Any) -> float:
    """A protobuf JSON duration ("2s", "0.500s"), or 0."""
    try:
        return float(str(duration or "0s").removesuffix("s"))
    except ValueError:
        return 0.0


def count_all(histories: Iterable[History]) -> Actions:
    """The actions of several runs (a chain of continue-as-new runs, or a workflow and its children)."""
    return sum((count(history) for history in histories), Actions())


def polls(history: History) -> int:
    """Port polls a run made: its port_status activities scheduled, and each watch_port activity's attempts
    (its last ACTIVITY_TASK_STARTED says how many; one cancelled or still pending shows none: counted 1)."""
    watches: dict[str, int] = {}
    found = 0
    for event in history.get("events", []):
        name, attrs = kind(event), attributes(event)
        activity_name = (attrs.get("activityType") or {}).get("name")
        if name == "ACTIVITY_TASK_SCHEDULED" and activity_name == POLL_ACTIVITY:
            found += 1
        elif name == "ACTIVITY_TASK_SCHEDULED" and activity_name == WATCH_ACTIVITY:
            watches[str(event.get("eventId"))] = 1
        elif name == "ACTIVITY_TASK_STARTED" and str(attrs.get("scheduledEventId")) in watches:
            watches[str(attrs.get("scheduledEventId"))] = int(attrs.get("attempt", 1))
    return found + sum(watches.values())


def workflow_tasks(history: History) -> int:
    """Workflow tasks a run had dispatched to a worker (WORKFLOW_TASK_STARTED): not billed as actions, but each
    is a round trip through the server and a replay step in the worker, so they pace a line as much as its
    actions do. A speculative task (an update's) shows only when the update was accepted."""
    return sum(1 for event in history.get("events", []) if kind(event) == "WORKFLOW_TASK_STARTED")


def workflow_type(history: History) -> str:
    events = history.get("events", [])
    first = attributes(events[0]) if events else {}
    return str((first.get("workflowType") or {}).get("name", "?"))
