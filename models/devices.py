"""The devices domain's data: the device compatibility lookup's messages (the carrier's typed reply), its request,
and its answer (interface section 2.7 with the carrier's native block)."""

from __future__ import annotations

from dataclasses import dataclass

from models.envelope import Budget, Shape, omitted_when_none
from models.types import ActionRequest, CarrierCode, Imei


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


class CheckDeviceCompatibility(ActionRequest):
    """Asks the carrier whether a device (by IMEI) works on its network."""

    imei: Imei
    carrier: CarrierCode


class DeviceManufacturer(Shape):
    make: str
    model: str


class DeviceStatusDetails(Shape):
    """The carrier's deviceStatusDetails, in its own names; the indicators as the text channels compare with."""

    imei: str
    attCompatibility: str
    manufacturer: DeviceManufacturer
    blacklistedIndicator: str
    volteCapableIndicator: str
    umtsCapableIndicator: str
    deviceCategory: str

    @classmethod
    def of(cls, status: DeviceStatus, *, refused: bool) -> DeviceStatusDetails:
        return cls(
            imei=status.imei,
            attCompatibility="RED" if refused else status.att_compatibility,
            manufacturer=DeviceManufacturer(make=status.manufacturer.make, model=status.manufacturer.model),
            blacklistedIndicator="Y" if status.blacklisted else "N",
            volteCapableIndicator="true" if status.volte_capable else "false",
            umtsCapableIndicator="true" if status.umts_capable else "false",
            deviceCategory=status.category,
        )


class DeviceStatusResponse(Shape):
    deviceStatusDetails: DeviceStatusDetails


class DeviceResponseDetails(Shape):
    inquireDeviceStatusResponse: DeviceStatusResponse


class DeviceResult(Shape):
    responseDetails: DeviceResponseDetails


class Device(Shape):
    """Interface section 2.7 (every value a string), and `RESULT`, the carrier's native block
    (responseDetails.inquireDeviceStatusResponse.deviceStatusDetails)."""

    STATUSCODE: str
    DESCRIPTION: str
    IMEI: str
    REFERENCENUMBER: str
    VOLTE_COMPATIBLE: str
    NAME: str
    IS_MOBILE_DEVICE: str
    COMPATIBILITY: str
    RESULT: DeviceResult | None = omitted_when_none()

    @classmethod
    def of(cls, reply: DeviceReply) -> Device:
        """The carrier's verdict; a refused device (blacklisted) is NOT COMPATIBLE, whatever the carrier said."""
        refused = reply.status_code != "00"
        result, name = None, reply.name
        if reply.status is not None:
            details = DeviceStatusResponse(deviceStatusDetails=DeviceStatusDetails.of(reply.status, refused=refused))
            result = DeviceResult(responseDetails=DeviceResponseDetails(inquireDeviceStatusResponse=details))
            name = name or f"{reply.status.manufacturer.make} {reply.status.manufacturer.model}"
        return cls(
            STATUSCODE=reply.status_code,
            DESCRIPTION=reply.description,
            IMEI=reply.imei,
            REFERENCENUMBER=reply.reference_number,
            VOLTE_COMPATIBLE=reply.volte_compatible or ("NO" if refused else ""),
            NAME=name,
            IS_MOBILE_DEVICE=reply.is_mobile_device,
            COMPATIBILITY="NOT COMPATIBLE" if refused else reply.compatibility,
            RESULT=result,
        )


# The documented example: an iPhone the carrier finds compatible.
IPHONE = DeviceStatus("352099081234508", "GREEN", Manufacturer("Apple", "iPhone 15"), False, True, True, "SMARTPHONE")
DEVICE = Device.of(
    DeviceReply("00", "Success", IPHONE.imei, "512093847261", "YES", "Apple iPhone 15", "YES", "COMPATIBLE", IPHONE)
)
