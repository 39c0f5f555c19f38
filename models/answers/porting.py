"""`data` of /port: query_portin, update_portin, validate_portin."""

from __future__ import annotations

from models.answers.base import Shape


class PortRecord(Shape):
    portin_status: str
    resolution_description: str
    carrier_response: str
    request_datetime: str
    response_datetime: str


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
    reason: str | None = None
