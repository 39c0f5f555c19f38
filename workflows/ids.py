"""Workflow ids from business ids: readable in the Temporal UI, and the same for a repeated request."""

from __future__ import annotations

import hashlib


def enrollment_workflow_id(parent_enrollment_id: str, enrollment_ids: list[str]) -> str:
    digest = hashlib.sha256(",".join(sorted(enrollment_ids)).encode()).hexdigest()[:10]
    return f"enrollment-{parent_enrollment_id}-{len(enrollment_ids)}l-{digest}"


def line_workflow_id(enrollment_id: str) -> str:
    return f"line-{enrollment_id}"


def port_workflow_id(enrollment_id: str) -> str:
    return f"port-{enrollment_id}"


def esim_workflow_id(enrollment_id: str) -> str:
    """One per line: two assign_esim at once find the same run, and the carrier one reservation."""
    return f"esim-{enrollment_id}"


def tax_workflow_id(calc_id: str) -> str:
    return f"tax-{calc_id}"


def inquiry_workflow_id(enrollment_id: str, request_id: str) -> str:
    return f"inquiry-{enrollment_id}-{request_id}"


def tax_quote_workflow_id(idempotency_key: str) -> str:
    return f"taxquote-{idempotency_key}"


def tax_registration_workflow_id(calc_id: str) -> str:
    """A calculation quoted from held rates, registered at the carrier once it is back: one per calc id."""
    return f"taxreg-{calc_id}"


def nlad_workflow_id(request_id: str) -> str:
    return f"nlad-{request_id}"


def device_workflow_id(request_id: str) -> str:
    return f"device-{request_id}"


def lookup_workflow_id(kind: str, request_id: str) -> str:
    """A carrier lookup of one request: `portcheck-…`, `carriers-…`, `taxestimate-…`."""
    return f"{kind}-{request_id}"


def mail_workflow_id(idempotency_key: str) -> str:
    return f"mail-{idempotency_key}"


def payment_guard_workflow_id(idempotency_key: str, attempt: int) -> str:
    return f"payment-{idempotency_key}-{attempt}"
