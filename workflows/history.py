"""When a long-lived workflow continues as new (issue 27, finding 6): when Temporal suggests it, or past the
history length LINEUP_WORKFLOW_HISTORY_EVENTS gives (lower in tests, which the time-skipping server never
suggests). Temporal warns at 10,240 events and suggests continuing at about 4,000; the webhook dispatcher's one
history had 18,018 after ten minutes at an order a second."""

from __future__ import annotations

from temporalio import workflow


def history_full(limit: int) -> bool:
    info = workflow.info()
    return info.is_continue_as_new_suggested() or info.get_current_history_length() >= limit
