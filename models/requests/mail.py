"""`/mail`: send."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from models.requests.base import ActionRequest
from models.rules import fail
from models.types import Email, Emails, HeaderName, HeaderNames, HtmlBody, Subject


class Send(ActionRequest):
    """An HTML e-mail to 1 to 50 recipients; names and subject are single lines (no header injection)."""

    sender_name: HeaderName
    sender_email: Email
    subject: Subject
    body: HtmlBody
    receiver_name: HeaderNames
    receiver_email: Emails

    @field_validator("receiver_email")
    @classmethod
    def _one_address_per_name(cls, emails: list[str], info: ValidationInfo[object]) -> list[str]:
        names = info.data.get("receiver_name")
        if names is not None and len(names) != len(emails):
            raise fail(f"must hold as many entries as Receiver name ({len(names)})")
        return emails

    def __repr__(self) -> str:  # addresses and content stay out of logs
        return f"Send(recipients={len(self.receiver_email)})"


class ListUndeliveredMail(ActionRequest):
    """The vendor's mail that did not go out (REJECTED, or QUEUED past the sweep's grace), oldest first."""

    limit: int = Field(default=100, ge=1, le=500)
