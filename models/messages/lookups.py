"""Messages of the lookups a channel waits on: line inquiry, device compatibility, port validation, the
carrier list, tax estimates, and the NLAD check (whose subject travels sealed, so history shows
ciphertext only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Lookup:
    """Input of LookupWorkflow: which CarrierActivities method to run, and its argument (decoded by the
    activity into its own message type)."""

    activity: str
    argument: Any


@dataclass(frozen=True)
class InquiryRequest:
    enrollment_id: str
    vendor_code: str
    line_inquiry: bool = True
    balance_inquiry: bool = True
    query_sim_info: bool = False
    subscriber_status: bool = False


@dataclass(frozen=True)
class NladCheck:
    """Input of NladCheckWorkflow. The subject (names, SSN4, birth date, address) travels sealed with the
    field cipher, so history shows ciphertext only and no SSN or birth date is written to our database."""

    check_key: str  # the workflow id; the recorded check is keyed by it
    vendor_id: int
    sealed_subject: str
    enrollment_id: str | None = None
    agent_id: str | None = None


@dataclass(frozen=True)
class NladAnswer:
    result: str  # NLAD's answer as it gave it, e.g. SUBSCRIBER_NOT_FOUND


@dataclass(frozen=True)
class NladOutcome:
    """Records an answered check (outcome, ZIP, initials; never the SSN)."""

    check: NladCheck
    result: str


@dataclass(frozen=True)
class DeviceQuery:
    imei: str
    carrier: str


@dataclass(frozen=True)
class PortCheck:
    vendor_code: str
    port_number: str
    zip_code: str | None = None


@dataclass(frozen=True)
class PortEligibility:
    port_number: str
    eligible: bool
    current_carrier: str
    current_carrier_name: str
    reason: str | None = None


@dataclass(frozen=True)
class CarrierEntry:
    carrier_id: str
    carrier: str
    carrier_name: str


@dataclass(frozen=True)
class CarrierList:
    carriers: list[CarrierEntry] = field(default_factory=list)


@dataclass(frozen=True)
class TaxItem:
    name: str
    cents: int


@dataclass(frozen=True)
class TaxEstimateQuery:
    vendor_code: str
    state: str
    amount_cents: int


@dataclass(frozen=True)
class TaxEstimate:
    tax_cents: int
    items: list[TaxItem] = field(default_factory=list)
