"""Messages of the support domain's sweep: what a write-then-start pair left behind (a row written, its
workflow never started because Temporal went away in between), found by id so nothing else enters history."""

from __future__ import annotations

from dataclasses import dataclass, field

from models.messages.enrollment import EnrollmentOrder, Pacing
from models.messages.mail import MailDelivery


@dataclass(frozen=True)
class Sweep:
    """Input of SweepWorkflow (run by the `lineup-sweep` schedule)."""

    grace_seconds: float = 120.0  # a row younger than this may still be starting its own workflow
    token_retention_hours: float = 24.0  # used and expired tokens are kept this long for the audit trail
    pacing: Pacing = field(default_factory=Pacing)
    proof_retention_days: float = 365.0  # password-change proof images are purged this long after their change


@dataclass(frozen=True)
class LeftBehind:
    orders: list[EnrollmentOrder] = field(default_factory=list)
    mails: list[MailDelivery] = field(default_factory=list)


@dataclass(frozen=True)
class SweepReport:
    enrollments_started: int = 0
    mails_started: int = 0
    tokens_purged: int = 0
