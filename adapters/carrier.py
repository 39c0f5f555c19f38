"""The carrier's wholesale API: activation, line inquiry, port-in, device compatibility, the carrier list and
tax. Its answers carry a STATUSCODE (`00` is success; anything else is a business "no", Rejected); each
method answers a typed reply."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from pydantic import Field

from adapters.http import Body, JsonService, Rejected, W, Wire
from models.devices import DeviceReply, DeviceStatus, Manufacturer
from models.enrollment.lines import CarrierItem, CarrierList, LineInquiryAnswer, PortSubmitted
from models.payment import TaxEstimate, TaxLine, TaxQuoted
from models.porting import PortEligibilityReply, PortView


@dataclass(frozen=True)
class Activation:
    """An activation as the carrier gave it; an eSIM's profile (its ICCID and activation code) is sealed in the
    line by the activity, never returned to the workflow."""

    mdn: str
    msid: str
    msl: str
    iccid: str | None = None
    activation_code: str | None = None


@dataclass(frozen=True)
class EsimReservation:
    """A profile the carrier reserved for a line without a SIM: sealed in the line by the activity."""

    iccid: str
    activation_code: str

    def __repr__(self) -> str:  # the activation code downloads the profile to any phone
        return f"EsimReservation({self.iccid})"


@dataclass(frozen=True)
class LineOrder:
    """What an activation sends (its fields are the body's): the line's plan and SIM, and where it is served."""

    vendor_id: str
    enrollment_id: str
    zip: str
    state: str
    plan_id: str
    iccid: str | None
    esn: str | None
    esim: bool


@dataclass(frozen=True)
class PortOrder:
    """A port-in submission: the number, the line's SIM and the old account's data (never logged)."""

    vendor_id: str
    enrollment_id: str
    port_number: str
    iccid: str | None
    current_carrier: str
    old_account: dict[str, str]
    holder_consent: bool = False  # Lineup holds the number and the old account matched its line's

    def __repr__(self) -> str:
        return f"PortOrder({self.enrollment_id})"


class CarrierClient(JsonService):
    system = "The carrier"

    async def activate(self, order: LineOrder, *, key: str) -> Activation:
        done = await self._call("/activations", asdict(order), _Activated, key=key)
        return Activation(done.MDN, done.MSID, done.MSL, done.ICCID, done.ACTIVATION_CODE)

    async def reserve_esim(self, *, vendor_id: str, enrollment_id: str, key: str) -> EsimReservation:
        """A profile for a line that has no SIM yet; its activation later uses it (the same key, the same one)."""
        body = {"vendor_id": vendor_id, "enrollment_id": enrollment_id}
        done = await self._call("/esim-profiles", body, _Reserved, key=key)
        return EsimReservation(done.ICCID, done.ACTIVATION_CODE)

    async def line_inquiry(self, *, vendor_id: str, mdn: str, flags: dict[str, bool]) -> LineInquiryAnswer:
        """A carrier-level answer whatever its STATUSCODE (909 included): the channel reads it as it is."""
        body = Body.model_validate({"vendor_id": vendor_id, "mdn": mdn, **flags})
        found = await self.post("/line-inquiry", body, _LineInquiry)
        return LineInquiryAnswer(
            status_code=found.STATUSCODE,
            description=found.DESCRIPTION,
            mdn=found.MDN,
            esn=found.ESN,
            sim_number=found.SIM_NUMBER,
            ban=found.BAN,
            esn_status=found.ESNSTATUS,
            account_status=found.ACCOUNTSTATUS,
            talk_balance=found.TALK_BALANCE,
            sms_balance=found.SMS_BALANCE,
            data_balance=found.DATA_BALANCE,
            reference_number=found.REFERENCENUMBER,
        )

    async def submit_port(self, order: PortOrder, *, key: str) -> PortSubmitted:
        # The order's fields by their names, the old account's after them.
        body = {name: value for name, value in asdict(order).items() if name != "old_account"} | order.old_account
        done = await self._call("/ports", body, _Port, key=key)
        return PortSubmitted(port_id=done.PORT_ID, status=done.PORTIN_STATUS)

    async def release(self, vendor_id: str, mdn: str, *, key: str) -> None:
        """Gives a number back to the carrier (a line that took a ported number no longer needs its first)."""
        await self._call("/lines/release", {"vendor_id": vendor_id, "mdn": mdn}, Answer, key=key)

    async def port_status(self, vendor_id: str, port_id: str) -> PortView:
        return (await self._call("/ports/status", {"vendor_id": vendor_id, "port_id": port_id}, _Port)).view()

    async def update_port(self, vendor_id: str, port_id: str, corrections: dict[str, str], *, key: str) -> PortView:
        body = {"vendor_id": vendor_id, "port_id": port_id, **corrections}
        return (await self._call("/ports/update", body, _Port, key=key)).view()

    async def device_compatibility(self, imei: str, carrier: str) -> DeviceReply:
        """The carrier's verdict, its refusal (a blacklisted device) included: the caller decides what to say."""
        body = Body.model_validate({"imei": imei, "carrier": carrier})
        return (await self.post("/device-compatibility", body, _Device)).reply()

    async def validate_port(self, vendor_id: str, port_number: str, zip_code: str | None) -> PortEligibilityReply:
        body = {"vendor_id": vendor_id, "port_number": port_number, "zip_code": zip_code}
        found = await self._call("/ports/validate", body, _Eligibility)
        return PortEligibilityReply(
            port_number=found.PORT_NUMBER or port_number,
            eligible=found.ELIGIBLE == "Y",
            current_carrier=found.CURRENT_CARRIER,
            current_carrier_name=found.CURRENT_CARRIER_NAME,
            reason=found.REASON or None,
        )

    async def carriers(self, vendor_id: str) -> CarrierList:
        found = await self._call("/carriers", {"vendor_id": vendor_id}, _Carriers)
        return CarrierList([CarrierItem(str(c.CARRIER_ID), c.CARRIER, c.CARRIER_NAME) for c in found.CARRIERS])

    async def tax_quote(self, vendor_id: str, state: str, amount_cents: int) -> TaxEstimate:
        """The tax the carrier would register for this amount, registering nothing."""
        body = {"vendor_id": vendor_id, "state": state, "amount_cents": amount_cents}
        found = await self._call("/tax/quote", body, _Tax)
        return TaxEstimate(found.TAX_AMOUNT_CENTS, found.lines())

    async def register_tax(self, vendor_id: str, state: str, amount_cents: int, *, key: str) -> TaxQuoted:
        body = {"vendor_id": vendor_id, "state": state, "amount_cents": amount_cents}
        found = await self._call("/tax/calculations", body, _Tax, key=key)
        return TaxQuoted(calc_id=found.CALCID, tax_cents=found.TAX_AMOUNT_CENTS, items=found.lines())

    async def collect_tax(
        self, vendor_id: str, calc_id: str, iccid: str, status: str, *, key: str | None
    ) -> tuple[str, str]:
        """The carrier's reference of the collection, and its words."""
        body = {"vendor_id": vendor_id, "calc_id": calc_id, "iccid": iccid, "status": status}
        collected = await self._call("/tax/collect", body, _Collected, key=key)
        return collected.REFERENCENUMBER, collected.DESCRIPTION

    async def _call(self, path: str, body: Mapping[str, object], reply: type[W], *, key: str | None = None) -> W:
        """The carrier's answer when its STATUSCODE is 00; Rejected with its code and description otherwise."""
        content = await self.send(path, Body.model_validate(body), key=key)
        status = self.read(path, content, Answer)  # a refusal carries little more than its code and words
        if status.STATUSCODE != "00":
            raise Rejected(status.STATUSCODE, status.DESCRIPTION or "rejected")
        return self.read(path, content, reply)


# The carrier's answers, in its names.
class Answer(Wire):
    STATUSCODE: str
    DESCRIPTION: str = ""


class _Activated(Answer):
    MDN: str
    MSID: str
    MSL: str
    ICCID: str | None = None
    ACTIVATION_CODE: str | None = None


class _Reserved(Answer):
    ICCID: str
    ACTIVATION_CODE: str


class _LineInquiry(Answer):
    MDN: str = ""
    ESN: str | None = None
    SIM_NUMBER: str | None = None
    BAN: str = ""
    ESNSTATUS: str = ""
    ACCOUNTSTATUS: str = ""
    TALK_BALANCE: float = 0
    SMS_BALANCE: float = 0
    DATA_BALANCE: float = 0
    REFERENCENUMBER: str = ""


class _Port(Answer):
    PORT_ID: str = ""
    PORTIN_STATUS: str = ""
    RESOLUTION_CODE: str | None = None
    RESOLUTION_DESCRIPTION: str | None = None
    REQUEST_DATETIME: str | None = None
    RESPONSE_DATETIME: str | None = None
    MDN: str | None = None
    MSID: str | None = None
    MSL: str | None = None

    def view(self) -> PortView:
        return PortView(
            status=self.PORTIN_STATUS,
            resolution_code=self.RESOLUTION_CODE,
            resolution_description=self.RESOLUTION_DESCRIPTION,
            carrier_response=self.DESCRIPTION,
            request_datetime=self.REQUEST_DATETIME,
            response_datetime=self.RESPONSE_DATETIME,
            mdn=self.MDN,
            msid=self.MSID,
            msl=self.MSL,
        )


class _Manufacturer(Wire):
    make: str
    model: str


class _StatusDetails(Wire):
    imei: str
    attCompatibility: str
    manufacturer: _Manufacturer
    blacklistedIndicator: str
    volteCapableIndicator: str
    umtsCapableIndicator: str
    deviceCategory: str


class _StatusResponse(Wire):
    deviceStatusDetails: _StatusDetails


class _Details(Wire):
    inquireDeviceStatusResponse: _StatusResponse


class _Native(Wire):
    responseDetails: _Details


class _Device(Answer):
    IMEI: str = ""
    REFERENCENUMBER: str = ""
    VOLTE_COMPATIBLE: str = ""
    NAME: str = ""
    IS_MOBILE_DEVICE: str = ""
    COMPATIBILITY: str = ""
    RESULT: _Native | None = None

    def reply(self) -> DeviceReply:
        status = None
        if self.RESULT is not None:
            found = self.RESULT.responseDetails.inquireDeviceStatusResponse.deviceStatusDetails
            status = DeviceStatus(
                imei=found.imei,
                att_compatibility=found.attCompatibility,
                manufacturer=Manufacturer(found.manufacturer.make, found.manufacturer.model),
                blacklisted=found.blacklistedIndicator == "Y",
                volte_capable=found.volteCapableIndicator in ("Y", "true"),
                umts_capable=found.umtsCapableIndicator in ("Y", "true"),
                category=found.deviceCategory,
            )
        return DeviceReply(
            status_code=self.STATUSCODE,
            description=self.DESCRIPTION,
            imei=self.IMEI,
            reference_number=self.REFERENCENUMBER,
            volte_compatible=self.VOLTE_COMPATIBLE,
            name=self.NAME,
            is_mobile_device=self.IS_MOBILE_DEVICE,
            compatibility=self.COMPATIBILITY,
            status=status,
        )


class _Eligibility(Answer):
    PORT_NUMBER: str = ""
    ELIGIBLE: str = "N"
    CURRENT_CARRIER: str = ""
    CURRENT_CARRIER_NAME: str = ""
    REASON: str | None = None


class _Carrier(Wire):
    CARRIER_ID: str | int
    CARRIER: str
    CARRIER_NAME: str


class _Carriers(Answer):
    CARRIERS: list[_Carrier] = Field(default_factory=list)


class _TaxLine(Wire):
    TAX_NAME: str
    TAX_AMOUNT_CENTS: int


class _Tax(Answer):
    CALCID: str = ""
    TAX_AMOUNT_CENTS: int = 0
    TAX_BREAKUP: list[_TaxLine] = Field(default_factory=list)

    def lines(self) -> list[TaxLine]:
        return [TaxLine(line.TAX_NAME, line.TAX_AMOUNT_CENTS) for line in self.TAX_BREAKUP]


class _Collected(Answer):
    REFERENCENUMBER: str = ""
