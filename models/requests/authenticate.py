"""`POST /authenticate`: the form public clients of the original service send."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from models.requests.wellformed import WellFormedText
from models.types import Raw32, Raw100, Raw128


class AuthenticateRequest(WellFormedText):
    """All four are required; a missing one is answered like a wrong one (`Invalid credentials!!`)."""

    model_config = ConfigDict(extra="ignore")

    vendor_id: Raw32 | None = Field(default=None, examples=["DEMO"])
    username: Raw100 | None = Field(default=None, examples=["demo.api"])
    password: Raw128 | None = Field(default=None, examples=["demo-pass-1"])
    pin: Raw32 | None = Field(default=None, examples=["1234"])

    def missing(self) -> list[str]:
        names = {"vendor_id": "Vendor Id", "username": "Username", "password": "Password", "pin": "Pin"}
        return [f"Please enter {label}" for field, label in names.items() if not (getattr(self, field) or "").strip()]
