"""`data` of the porting domain: query_portin, update_portin (and submit_portin), validate_portin, get_list and
create_portin_v2…, the last two in the original service's own member names."""

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


class PortListRecord(Shape):
    port_subscriber_id: str  # the line the port brings the number to
    enroll_id: str
    portin_status: str
    number_to_port: str
    carrier: str
    attempt_count: int  # submissions: the first and each resubmission with corrections
    portin_company: str
    account_number: str  # its last 4 only
    first_name: str
    last_name: str
    address_one: str
    city: str
    state: str
    zip_code: str
    resolution_description: str
    request_datetime: str


class PortList(Shape):
    records: list[PortListRecord]


class PortCreateResult(Shape):
    accountId: str
    portRequestNumber: str


class PortCreated(Shape):
    MDN: str
    REFRENCENO: str  # sic: the original's spelling
    RESULT: PortCreateResult


PORT_QUERY = PortQuery(
    records=[
        PortRecord(
            portin_status="CONFIRMED",
            resolution_description="",
            carrier_response="Port confirmed",
            request_datetime="2026-11-22T10:15:02+00:00",
            response_datetime="2026-11-22T10:15:32+00:00",
        )
    ]
)
PORT_UPDATE = PortUpdate(enroll_id="EA7KQ2M4XZP9R3TBWVC", portin_status="SUBMITTED")
PORT_ELIGIBILITY = PortEligibility(
    port_number="4045551234", eligible="Y", current_carrier="TMB", current_carrier_name="T-Mobile USA"
)
PORT_LIST = PortList(
    records=[
        PortListRecord(
            port_subscriber_id="EA7KQ2M4XZP9R3TBWVC",
            enroll_id="EA7KQ2M4XZP9R3TBWVC",
            portin_status="SUBMITTED",
            number_to_port="4045551234",
            carrier="TMB",
            attempt_count=1,
            portin_company="T-Mobile USA",
            account_number="6789",
            first_name="John",
            last_name="Doe",
            address_one="1 Main St",
            city="Atlanta",
            state="GA",
            zip_code="30301",
            resolution_description="",
            request_datetime="2026-11-22T10:15:02+00:00",
        )
    ]
)
PORT_CREATED = PortCreated(
    MDN="4045551234",
    REFRENCENO="PORT_CREATE_EA7KQ2M4XZP9R3TBWVC",
    RESULT=PortCreateResult(accountId="482913746", portRequestNumber="PRT5K2M9Q4XZ"),
)
