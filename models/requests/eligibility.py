"""`/nlad`: nlad_etc_check and tpiv_listing."""

from __future__ import annotations

from models.requests.base import ActionRequest
from models.types import AddressLine, Alnum, City, PastDate, PersonName, Ssn4, State, YesNo, Zip5, Zip5to8


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
