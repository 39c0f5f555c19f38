"""`/inventory`: check_device_compatibility."""

from __future__ import annotations

from typing import Literal

from models.requests.base import ActionRequest
from models.types import CarrierCode, Imei


class CheckDeviceCompatibility(ActionRequest):
    """Asks the carrier whether a device (by IMEI) works on its network."""

    action: Literal["check_device_compatibility"]
    imei: Imei
    carrier: CarrierCode


InventoryAction = CheckDeviceCompatibility
