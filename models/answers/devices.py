"""`data` of the devices domain: device compatibility (and get_query_device)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from models.answers.base import Shape


class Device(Shape):
    """Interface section 2.7, and the carrier's native block as the original's device checkers read it."""

    STATUSCODE: str
    DESCRIPTION: str
    IMEI: str
    REFERENCENUMBER: str
    VOLTE_COMPATIBLE: str
    NAME: str
    IS_MOBILE_DEVICE: str
    COMPATIBILITY: str
    RESULT: dict[str, Any] | None = Field(
        default=None,
        description="responseDetails.inquireDeviceStatusResponse.deviceStatusDetails, as the carrier sent it",
    )
