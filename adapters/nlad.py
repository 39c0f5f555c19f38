"""The national eligibility database (NLAD): the ETC check of one subscriber."""

from __future__ import annotations

from adapters.http import JsonService, Wire
from models.crypto import Subject


class _Subject(Wire):
    first_name: str
    middle_name: str | None = None
    last_name: str
    dob: str
    address_one: str
    address_two: str | None = None
    city: str
    state: str
    zip_code: str
    ssn4: str


class _Result(Wire):
    result: str


class NladClient(JsonService):
    system = "NLAD"

    async def etc_check(self, subject: Subject) -> str:
        """NLAD's answer for the subscriber (SUBSCRIBER_NOT_FOUND, TPIV_FAIL_DOB, …), passed on as it is; an
        answer without a result is as useless as no answer, and retried like an outage."""
        answer = await self.post("/etc-check", _Subject.model_validate(subject), _Result)
        return answer.result
