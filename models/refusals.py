"""Refusal messages more than one operation gives, in the words channels see (one place to change them)."""

from __future__ import annotations

NO_RECORD = "No Record Found"
PLANS_NOT_FOUND = "Plans not found"
NO_PORT_ORDER = "No port-in order found for this enrollment id"
PORT_IN_PROGRESS = "Number already has a port in progress"


def invalid_enrollment_id(enrollment_id: str | None) -> str:
    return f"Invalid enrollment id {enrollment_id}. Please provide a valid enrollment ID."


def not_waiting_for_activation(status: str) -> str:
    return f"Line is not waiting for activation ({status})"


def already_porting(status: str | None = None) -> str:
    return f"Line is already porting a number ({status})" if status else "Line is already porting a number"
