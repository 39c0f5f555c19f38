"""NLAD eligibility stand-in: `etc-check` answers from the SSN's last four digits, address and age.

Order of checks (the first that applies answers):
1. SSN4 7777: NLAD is down (HTTP 503), before anything else is looked at;
2. the SSN4 table (1111-6666): the explicit trigger a test chose wins over the natural rules;
3. an address line containing INVALID (any case): INVALID_ADDRESS;
4. a birth date less than 18 years ago: SUBSCRIBER_UNDER_18;
5. anyone else: SUBSCRIBER_NOT_FOUND (not yet enrolled, so eligible to enroll).
"""

from datetime import date

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from sandbox.faults import ServiceDown, add_latency, maybe_fail

router = APIRouter(prefix="/nlad", dependencies=[Depends(add_latency), Depends(maybe_fail)])

SSN4_ANSWERS = {
    "1111": "TPIV_FAIL_IDENTITY_NOT_FOUND",
    "2222": "TPIV_FAIL_NAME_SSN4",
    "3333": "TPIV_FAIL_DOB",
    "4444": "TPIV_FAIL_DECEASED",
    "5555": "DUPLICATE_SUBSCRIBER",
    "6666": "DUPLICATE_ADDRESS",
}
SSN4_DOWN = "7777"


class EtcCheckRequest(BaseModel):
    """One subscriber's identity and address, as an ETC checks them before enrolling."""

    first_name: str
    middle_name: str | None = None
    last_name: str
    ssn4: str
    dob: date
    address_one: str
    address_two: str | None = None
    city: str
    state: str
    zip_code: str


def is_under_18(dob: date, *, today: date) -> bool:
    """True until the 18th birthday (a 29 February birthday counts from 1 March in common years)."""
    years = today.year - dob.year - ((today.month, today.day) < (dob.month, dob.day))
    return years < 18


def etc_answer(body: EtcCheckRequest, *, today: date) -> str:
    """NLAD's answer for this subscriber (see the module docstring for the order)."""
    if body.ssn4 in SSN4_ANSWERS:
        return SSN4_ANSWERS[body.ssn4]
    address = f"{body.address_one} {body.address_two or ''}"
    if "INVALID" in address.upper():
        return "INVALID_ADDRESS"
    if is_under_18(body.dob, today=today):
        return "SUBSCRIBER_UNDER_18"
    return "SUBSCRIBER_NOT_FOUND"


@router.post("/etc-check")
async def etc_check(body: EtcCheckRequest) -> dict[str, str]:
    """Check a subscriber against NLAD; 7777 plays an outage."""
    if body.ssn4 == SSN4_DOWN:
        raise ServiceDown()
    return {"result": etc_answer(body, today=date.today())}
