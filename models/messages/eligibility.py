"""Messages of the eligibility domain: the NLAD check, whose subject travels sealed, so history shows
ciphertext only."""

from __future__ import annotations

from dataclasses import dataclass

from models.messages.lookups import Budget


@dataclass(frozen=True)
class NladCheck(Budget):
    """Input of NladCheckWorkflow. The subject (names, SSN4, birth date, address) travels sealed with the
    field cipher, so history shows ciphertext only and no SSN or birth date is written to our database."""

    check_key: str  # the workflow id; the recorded check is keyed by it
    vendor_id: int
    sealed_subject: str
    enrollment_id: str | None = None
    agent_id: str | None = None


@dataclass(frozen=True)
class NladAnswer:
    result: str  # NLAD's answer as it gave it, e.g. SUBSCRIBER_NOT_FOUND


@dataclass(frozen=True)
class NladOutcome:
    """Records an answered check (outcome, ZIP, initials; never the SSN)."""

    check: NladCheck
    result: str
