"""`data` of the support domain: the lines waiting for support and the retries."""

from __future__ import annotations

from models.answers.base import Shape


class StuckLine(Shape):
    enrollment_id: str
    parent_enrollment_id: str
    status: str
    last_error: str
    since: str


class Retried(Shape):
    """One line: RETRYING (a stuck line's workflow tries again) or STARTED (its order's workflow started)."""

    enrollment_id: str
    status: str


class RetriedAll(Shape):
    """all_stuck Y: the lines resumed by this call, and how many more match for the next one."""

    retried: list[str]
    remaining: int
