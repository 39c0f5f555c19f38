"""Messages of the porting domain: the port-in workflow and the port validation lookup; ids and states only
(port secrets stay sealed in the database)."""

from __future__ import annotations

from dataclasses import dataclass

from models.messages.lookups import Budget


@dataclass(frozen=True)
class PortWatch:
    """Input of PortStatusWorkflow; carried over continue-as-new with the polls done so far."""

    enrollment_id: str
    vendor_code: str
    port_id: str
    submitted_at: str  # ISO time of the first submission: the port's age counts from it
    poll_seconds: float = 300.0
    max_days: float = 14.0
    polls: int = 0
    corrections: int = 0
    view: PortView | None = None
    # How the run polls: True by retries of one activity (no workflow task while nothing changes), False by a
    # timer per poll (ports started before that); None: decided by workflow.patched on the first run.
    by_retry: bool | None = None


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
class PortPoll:
    enrollment_id: str
    vendor_code: str
    port_id: str


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
class PortRequest:
    """create_portin_v2…'s update of a line waiting for activation: its port order is already stored (the
    old account's data sealed in the row); the line's workflow submits and follows it."""

    enrollment_id: str
    request_id: str


@dataclass(frozen=True)
class PortStarted:
    """The update's answer: the line's state once the carrier took (or refused) the port, or it got stuck."""

    status: str
    port_id: str | None = None
    reason: str | None = None
