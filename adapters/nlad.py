"""The national eligibility database (NLAD): the ETC check of one subscriber."""

from __future__ import annotations

from adapters.http import Body, JsonService, Wire
from models.crypto import Subject


class NladClient(JsonService):
    system = "NLAD"

    async def etc_check(self, subject: Subject) -> str:
        """NLAD's answer for the subscriber (SUBSCRIBER_NOT_FOUND, TPIV_FAIL_DOB, …), passed on as it is; an
        answer without a result is as useless as no answer, and retried like an outage."""
        answer = await self.post("/etc-check", Body.model_validate(subject), _Result)
        return answer.result


class _Result(Wire):
    result: str
