"""`/inventory`: check_device_compatibility and get_query_device."""

from __future__ import annotations

from models.requests.base import ActionRequest
from models.types import CarrierCode, Imei


class CheckDeviceCompatibility(ActionRequest):
    """Asks the carrier whether a device (by IMEI) works on its network."""

    imei: Imei
    carrier: CarrierCode
