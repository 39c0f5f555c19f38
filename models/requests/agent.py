"""`/agent`: update_location_coordinate (check_signature and save_signature arrive with their issue)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from models.requests.base import ActionRequest
from models.types import IpAddress, Latitude, Longitude, Otp, Text


class UpdateLocationCoordinate(ActionRequest):
    """Records where an agent is, optionally against the login-log entry of this session."""

    action: Literal["update_location_coordinate"]
    username: Text = Field(examples=["demo.agent"])
    latitude: Latitude = Field(examples=["33.7490"])
    longitude: Longitude = Field(examples=["-84.3880"])
    ip_address: IpAddress | None = Field(default=None, examples=["203.0.113.7"])
    login_log_otp: Otp | None = Field(default=None, examples=["123456"])


AgentAction = UpdateLocationCoordinate
