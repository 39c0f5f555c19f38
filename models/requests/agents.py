"""`/agent`: update_location_coordinate, check_signature and save_signature."""

from __future__ import annotations

from pydantic import Field

from models.images import SignatureImage
from models.requests.base import ActionRequest
from models.types import Alnum, IpAddress, Latitude, Longitude, Numeric, Otp, Text100


class UpdateLocationCoordinate(ActionRequest):
    """Records where an agent is, optionally against the login-log entry of this session."""

    username: Text100 = Field(examples=["demo.agent"])
    latitude: Latitude = Field(examples=["33.7490"])
    longitude: Longitude = Field(examples=["-84.3880"])
    ip_address: IpAddress | None = Field(default=None, examples=["203.0.113.7"])
    login_log_otp: Otp | None = Field(default=None, examples=["123456"])


class SaveSignature(ActionRequest):
    """Stores the acting agent's signature image, optionally for one enrollment; answers its id."""

    signature: SignatureImage
    enroll_id: Alnum | None = None

    def __repr__(self) -> str:
        return f"SaveSignature(enroll_id={self.enroll_id!r})"


class CheckSignature(ActionRequest):
    """Confirms a signature is on file, under one of the vendor's open login-log entries."""

    enroll_id: Alnum | None = None
    signature_id: Numeric | None = Field(default=None, examples=["12"])
    login_log_otp: Otp = Field(examples=["123456"])
