"""Requests of the auth domain: `/authenticate`'s form, agent_change_password and logout."""

from __future__ import annotations

from pydantic import ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from models.images import ProofImage
from models.requests.base import ActionRequest
from models.requests.location import Coordinate
from models.requests.wellformed import WellFormedText
from models.types import Latitude, Longitude, Raw32, Raw100, Raw128


class AgentChangePassword(ActionRequest):
    """Three proof images and where the agent is; a new password is generated and e-mailed to the agent."""

    worksite_proof: ProofImage
    table_proof: ProofImage
    agent_change_password: ProofImage
    latitude: Latitude | None = None
    longitude: Longitude | None = None
    coordinate: Coordinate | None = None

    @model_validator(mode="after")
    def _one_location(self) -> AgentChangePassword:
        if (self.latitude is None) != (self.longitude is None):
            raise PydanticCustomError("rule", "Latitude and Longitude must be sent together")
        if self.latitude is None and self.coordinate is None:
            raise PydanticCustomError("rule", "Please enter Latitude and Longitude, or a Coordinate object")
        return self

    def location(self) -> tuple[str, str]:
        """(latitude, longitude): the top-level pair when sent, else the coordinate object's."""
        if self.latitude is not None and self.longitude is not None:
            return self.latitude, self.longitude
        assert self.coordinate is not None  # _one_location
        return self.coordinate.latitude, self.coordinate.longitude

    def __repr__(self) -> str:
        return "AgentChangePassword()"


class Logout(ActionRequest):
    """Ends the session the token belongs to (extension): its login-log OTP closes and its tokens, the one of
    this answer included, stop working. Needs nothing but the token."""


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
