"""`/cards`: saved_card_list."""

from __future__ import annotations

from pydantic import Field

from models.requests.base import ActionRequest
from models.types import Alnum, Numeric, Secret, Text32, Text254


class SavedCardList(ActionRequest):
    """A customer's saved cards, masked; the customer logs in with the line's e-mail and password."""

    vendor_id: Text32 | None = Field(default=None, examples=["DEMO"])
    enrollment_id: Alnum
    username: Text254 = Field(examples=["pat@example.com"])
    password: Secret
    card_id: Numeric | None = Field(default=None, examples=["12"])

    def __repr__(self) -> str:  # never the password
        return f"SavedCardList(enrollment_id={self.enrollment_id!r}, card_id={self.card_id!r})"
