"""What every lookup a channel waits on carries: its budget, so the workflow's retry policy ends in time for
the answer to reach the channel (LINEUP_LOOKUP_BUDGET_SECONDS; a workflow reads no environment)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Budget:
    # Keyword-only: it goes after each lookup's own fields, and histories recorded without it decode.
    budget_seconds: float = field(default=10.0, kw_only=True)
