"""Messages of the porting domain: the port-in workflow (submission, polling, corrections, completion) and the
port validation lookup; ids and states only (port secrets stay sealed in the database)."""

from __future__ import annotations

from dataclasses import dataclass, field

from models.messages.enrollment import Pacing, StuckState
from models.messages.lookups import Budget


@dataclass(frozen=True)
class PortStart:
    """Input of PortInWorkflow (`port-<enrollment_id>`); carried over continue-as-new with what it has done."""

    enrollment_id: str
    vendor_code: str
    pacing: Pacing = field(default_factory=Pacing)
    line_active: bool = False  # a port into an ACTIVE line: it keeps its number and status until completion
    submitted: PortSubmission | None = None  # the submission the order made, or this workflow's earlier run's
    stuck: StuckState | None = None  # its submission is stuck
    polls: int = 0
    corrections: int = 0
    view: PortView | None = None


@dataclass(frozen=True)
class PortSubmission:
    """A submission's outcome: the carrier's port, or (`port_id` None) a port of a number an active line of
    Lineup holds whose old-account data did not match: never sent, `view` says RESOLUTION_REQUIRED and why."""

    port_id: str | None
    submitted_at: str  # ISO time of the first submission: the port's age counts from it
    view: PortView | None = None


@dataclass(frozen=True)
class PortFinish:
    """The port's end as it reaches the line; `released`: the number the line had before the ported one."""

    enrollment_id: str
    vendor_code: str
    view: PortView
    released: str | None = None


@dataclass(frozen=True)
class PortOutcome:
    """What the port's end made of the line."""

    status: str
    mdn: str | None = None
    error: str | None = None
    released: str | None = None


@dataclass(frozen=True)
class PortView:
    """What query_portin answers: the port's state as the carrier last reported it."""

    status: str
    resolution_code: str | None = None
    resolution_description: str | None = None
    carrier_response: str | None = None
    request_datetime: str | None = None
    response_datetime: str | None = None
    mdn: str | None = None
    msid: str | None = None
    msl: str | None = None


@dataclass(frozen=True)
class PortWatchPoll:
    """watch_port's input: the port, and the state the workflow knows (an answer with the same state is no
    news, and waits for the next retry)."""

    enrollment_id: str
    vendor_code: str
    port_id: str
    known: PortView


def same_state(one: PortView, other: PortView) -> bool:
    """Whether two answers say the same thing about the port: its status and resolution. The carrier's
    RESPONSE_DATETIME changes on every answer, so comparing whole answers would make every poll news."""
    return (one.status, one.resolution_code, one.resolution_description) == (
        other.status,
        other.resolution_code,
        other.resolution_description,
    )


@dataclass(frozen=True)
class PortCorrection(Budget):
    """update_portin's corrections are already stored (encrypted) with the port; this says resubmit."""

    enrollment_id: str
    correction_id: str


@dataclass(frozen=True)
class PortResubmit:
    enrollment_id: str
    vendor_code: str
    port_id: str
    idempotency_key: str


@dataclass(frozen=True)
class PortCheck(Budget):
    vendor_code: str
    port_number: str
    zip_code: str | None = None


@dataclass(frozen=True)
class PortEligibility:
    port_number: str
    eligible: bool
    current_carrier: str
    current_carrier_name: str
    reason: str | None = None


@dataclass(frozen=True)
class PortStarted:
    """The update's answer: the line's state once the carrier took (or refused) the port, or it got stuck."""

    status: str
    port_id: str | None = None
    reason: str | None = None
