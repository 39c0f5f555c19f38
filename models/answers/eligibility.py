"""`data` of the eligibility domain: the TPIV listing (nlad_etc_check answers NLAD's word as a string)."""

from __future__ import annotations

from models.answers.base import Shape
from models.tables.eligibility import EligibilityCheck


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
