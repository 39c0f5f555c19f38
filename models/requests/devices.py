"""`/inventory`: check_device_compatibility and get_query_device."""

from __future__ import annotations

from typing import Literal

from models.requests.base import ActionRequest
from models.types import CarrierCode, Imei


class CheckDeviceCompatibility(ActionRequest):
    """Asks the carrier whether a device (by IMEI) works on its network."""

    action: Literal["check_device_compatibility", "get_query_device"]  # the original's T-Mobile name, same answer
    imei: Imei
    carrier: CarrierCode


InventoryAction = CheckDeviceCompatibility
