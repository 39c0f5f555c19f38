"""Messages of the devices domain: the device compatibility lookup."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceQuery:
    imei: str
    carrier: str
