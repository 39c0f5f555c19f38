"""`data` of the porting domain: query_portin, update_portin, validate_portin."""

from __future__ import annotations

from models.answers.base import Shape, omitted_when_none
from models.messages.porting import PortEligibility as Eligibility
from models.messages.porting import PortView


class PortRecord(Shape):
    portin_status: str
    resolution_description: str
    carrier_response: str
    request_datetime: str
    response_datetime: str

    @classmethod
    def of(cls, view: PortView) -> PortRecord:
        return cls(
            portin_status=view.status,
            resolution_description=view.resolution_description or "",
            carrier_response=view.carrier_response or "",
            request_datetime=view.request_datetime or "",
            response_datetime=view.response_datetime or "",
        )


class PortQuery(Shape):
    records: list[PortRecord]


class PortUpdate(Shape):
    enroll_id: str
    portin_status: str


class PortEligibility(Shape):
    port_number: str
    eligible: str
    current_carrier: str
    current_carrier_name: str
    reason: str | None = omitted_when_none()

    @classmethod
    def of(cls, found: Eligibility) -> PortEligibility:
        return cls(
            port_number=found.port_number,
            eligible="Y" if found.eligible else "N",
            current_carrier=found.current_carrier,
            current_carrier_name=found.current_carrier_name,
            reason=found.reason or None,
        )


PORT_QUERY = PortQuery(
    records=[
        PortRecord(
            portin_status="CONFIRMED", resolution_description="", carrier_response="Port confirmed",
            request_datetime="2026-11-22T10:15:02+00:00", response_datetime="2026-11-22T10:15:32+00:00",
        )
    ]
)  # fmt: skip
PORT_UPDATE = PortUpdate(enroll_id="EA7KQ2M4XZP9R3TBWVC", portin_status="SUBMITTED")
PORT_ELIGIBILITY = PortEligibility(
    port_number="4045551234", eligible="Y", current_carrier="TMB", current_carrier_name="T-Mobile USA"
)
