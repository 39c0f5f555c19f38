"""`/notes`: add_notes."""

from __future__ import annotations

from pydantic import Field

from models.requests.base import ActionRequest
from models.requests.location import Coordinate
from models.types import ActivityType, Alnum, NoteText, Numeric, ZeroOne


class AddNotes(ActionRequest):
    """A note on a customer's account; without agent_id the token's API user is its author."""

    customer_id: Numeric = Field(examples=["482913567"])
    enrollment_id: Alnum
    customer_notes: NoteText
    coordinate: Coordinate
    is_activity: ZeroOne | None = None
    activity_type: ActivityType | None = None

    def __repr__(self) -> str:  # the note may hold PII
        return f"AddNotes(enrollment_id={self.enrollment_id!r})"
