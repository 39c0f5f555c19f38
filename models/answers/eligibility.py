"""`data` of the eligibility domain: the TPIV listing (nlad_etc_check answers NLAD's word as a string)."""

from __future__ import annotations

from models.answers.base import Shape


class TpivRecord(Shape):
    enrollment_id: str
    failure_code: str
    first_name: str
    last_initial: str
    checked_at: str


class TpivListingData(Shape):
    zip_code: str
    records: list[TpivRecord]
