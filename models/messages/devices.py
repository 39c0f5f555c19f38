"""Messages of the devices domain: the device compatibility lookup and the carrier's typed reply."""

from __future__ import annotations

from dataclasses import dataclass

from models.messages.lookups import Budget


@dataclass(frozen=True)
class DeviceQuery(Budget):
    imei: str
    carrier: str


@dataclass(frozen=True)
class Manufacturer:
    make: str
    model: str


@dataclass(frozen=True)
class DeviceStatus:
    """The carrier's native deviceStatusDetails (AT&T's inquireDeviceStatus), as its own words say it."""

    imei: str
    att_compatibility: str  # GREEN with VoLTE, YELLOW without, RED not
    manufacturer: Manufacturer
    blacklisted: bool
    volte_capable: bool
    umts_capable: bool
    category: str


@dataclass(frozen=True)
class DeviceReply:
    """The carrier's verdict (section 2.7's fields) and its native block. A `status_code` other than 00 is the
    carrier's refusal (a blacklisted device), still with the device's data."""

    status_code: str
    description: str
    imei: str
    reference_number: str = ""
    volte_compatible: str = ""
    name: str = ""
    is_mobile_device: str = ""
    compatibility: str = ""
    status: DeviceStatus | None = None
