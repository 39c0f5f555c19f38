"""`POST /authenticate`: the form public clients of the original service send."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from models.types import NumOrStr


class AuthenticateRequest(BaseModel):
    """All four are required; a missing one is answered like a wrong one (`Invalid credentials!!`)."""

    model_config = ConfigDict(extra="ignore")

    vendor_id: NumOrStr | None = Field(default=None, examples=["DEMO"])
    username: NumOrStr | None = Field(default=None, examples=["demo.api"])
    password: str | None = Field(default=None, examples=["demo-pass-1"])
    pin: NumOrStr | None = Field(default=None, examples=["1234"])

    def missing(self) -> list[str]:
        names = {"vendor_id": "Vendor Id", "username": "Username", "password": "Password", "pin": "Pin"}
        return [f"Please enter {label}" for field, label in names.items() if not (getattr(self, field) or "").strip()]
