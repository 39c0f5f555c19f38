"""The `coordinate` object add_notes and agent_change_password carry."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from models.requests.optional import BlankIsAbsent
from models.types import Latitude, Longitude


class Coordinate(BlankIsAbsent):
    """Where the agent was: both values required, in range (JSON numbers or strings)."""

    model_config = ConfigDict(extra="ignore")

    latitude: Latitude = Field(examples=["33.7490"])
    longitude: Longitude = Field(examples=["-84.3880"])
