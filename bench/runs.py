"""The workflows the scenarios of one stack run created, by what each stands for, so the Temporal actions
(bench.temporal_actions) are counted on the bench's own runs. Workflow ids follow Lineup's naming
(workflows.ids): this module is the bench's only reader of it."""

from __future__ import annotations

from dataclasses import dataclass, field

from workflows.devices import device_workflow_id
from workflows.eligibility import nlad_workflow_id
from workflows.enrollment import enrollment_workflow_id, inquiry_workflow_id, line_workflow_id, port_workflow_id

LOOKUP_KINDS = ("device", "inquiry", "nlad")


@dataclass(frozen=True)
class EnrollmentRun:
    """One create_customer_prepaid_multiline: its EnrollmentWorkflow and the workflows of its lines with work left,
    which the order starts after its first try — a LineWorkflow for a NEWACTIVATION line its first try did not
    activate (one it activated has none: issue 36), the PortInWorkflow that does the whole port (submission, polls,
    completion) for a PORTIN line."""

    activation_type: str  # NEWACTIVATION or PORTIN (every line of the enrollment)
    workflow_id: str
    line_ids: tuple[str, ...]

    @property
    def lines(self) -> int:
        return len(self.line_ids)

    @property
    def porting(self) -> bool:
        return self.activation_type == "PORTIN"


@dataclass
class Runs:
    enrollments: list[EnrollmentRun] = field(default_factory=list)
    lookups: dict[str, list[str]] = field(default_factory=lambda: {kind: [] for kind in LOOKUP_KINDS})
    ports: list[str] = field(default_factory=list)  # PortStatusWorkflows T5 started and polled once
    # Their pending watch_port's attempt, read before T5 ended them: polls by retries leave no trace in a
    # history until the activity closes.
    pending_attempts: dict[str, int] = field(default_factory=dict)

    def enrollment(self, enrollment_ids: list[str], activation_type: str = "NEWACTIVATION") -> None:
        """`enrollment_ids` as sent, the first one the parent."""
        line_id = port_workflow_id if activation_type == "PORTIN" else line_workflow_id
        self.enrollments.append(
            EnrollmentRun(
                activation_type,
                enrollment_workflow_id(enrollment_ids[0], enrollment_ids),
                tuple(line_id(e) for e in enrollment_ids),
            )
        )

    def lookup(self, kind: str, request_id: str, enrollment_id: str = "") -> None:
        """A lookup answered to the API request `request_id` (its x-request-id header)."""
        if kind == "device":
            self.lookups[kind].append(device_workflow_id(request_id))
        elif kind == "nlad":
            self.lookups[kind].append(nlad_workflow_id(request_id))
        else:
            self.lookups[kind].append(inquiry_workflow_id(enrollment_id, request_id))

    def polled_ports(self, enrollment_ids: list[str]) -> None:
        self.ports.extend(port_workflow_id(e) for e in enrollment_ids)

    def __bool__(self) -> bool:
        return bool(self.enrollments or self.ports or any(self.lookups.values()))
