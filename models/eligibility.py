"""The eligibility domain's data: the NLAD check's messages (its subject travels sealed, so history shows none of
it), nlad_etc_check's and tpiv_listing's requests and answers, and the record of each answered check
tpiv_listing lists (never the SSN or the date of birth; of the name only the first name and the last initial)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Field as Column
from sqlmodel import SQLModel

from models.envelope import Budget, Shape
from models.types import (
    ActionRequest,
    AddressLine,
    Alnum,
    City,
    PastDate,
    PersonName,
    Ssn4,
    State,
    YesNo,
    Zip5,
    Zip5to8,
    utcnow,
)


class EligibilityCheck(SQLModel, table=True):
    __tablename__ = "eligibility_check"

    id: int | None = Column(default=None, primary_key=True)
    check_key: str = Column(max_length=120, unique=True)  # the check's workflow id: one row, retries or not
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    agent_username: str | None = Column(default=None, max_length=100)
    enrollment_id: str | None = Column(default=None, max_length=24, index=True)  # as the channel sent it
    zip_code: str = Column(max_length=5, index=True)
    outcome: str = Column(max_length=64)  # NLAD's answer, e.g. SUBSCRIBER_NOT_FOUND, TPIV_FAIL_DOB
    initials: str = Column(max_length=3)
    first_name: str = Column(max_length=50)
    last_initial: str = Column(max_length=1)
    checked_at: datetime = Column(default_factory=utcnow)


@dataclass(frozen=True)
class NladCheck(Budget):
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


class NladEtcCheck(ActionRequest):
    """Asks the national eligibility database about a subscriber; its answer is returned as it is."""

    ssn: Ssn4
    first_name: PersonName
    middle_name: PersonName | None = None
    last_name: PersonName
    dob: PastDate
    address_one: AddressLine
    address_two: AddressLine | None = None
    city: City
    state: State
    zip_code: Zip5
    enrollment_id: Alnum | None = None
    address_validation: YesNo | None = None

    def __repr__(self) -> str:  # never let an SSN or a birth date reach a log through repr
        return f"NladEtcCheck(zip_code={self.zip_code!r}, enrollment_id={self.enrollment_id!r})"


class TpivListing(ActionRequest):
    """The identity-verification failures recorded for a ZIP (5 to 8 digits, decisions.md)."""

    zip_code: Zip5to8


class TpivRecord(Shape):
    enrollment_id: str
    failure_code: str
    first_name: str
    last_initial: str
    checked_at: str

    @classmethod
    def of(cls, check: EligibilityCheck) -> TpivRecord:
        return cls(
            enrollment_id=check.enrollment_id or "",
            failure_code=check.outcome,
            first_name=check.first_name,
            last_initial=check.last_initial,
            checked_at=check.checked_at.isoformat(timespec="seconds"),
        )


class TpivListingData(Shape):
    zip_code: str
    records: list[TpivRecord]


TPIV_LISTING = TpivListingData(
    zip_code="30301",
    records=[
        TpivRecord(
            enrollment_id="EA7KQ2M4XZP9R3TBWVC",
            failure_code="TPIV_FAIL_DOB",
            first_name="Pat",
            last_initial="L",
            checked_at="2026-11-22T10:15:02+00:00",
        )
    ],
)
