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


STUCK = [
    StuckLine(
        enrollment_id="EA7KQ2M4XZP9R3TBWVC", parent_enrollment_id="EA7KQ2M4XZP9R3TBWVC", status="STUCK",
        last_error="The carrier is unavailable", since="2026-11-22T10:15:02+00:00",
    )
]  # fmt: skip
RETRIED = Retried(enrollment_id="EA7KQ2M4XZP9R3TBWVC", status="RETRYING")
