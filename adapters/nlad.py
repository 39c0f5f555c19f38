"""The national eligibility database (NLAD): the ETC check of one subscriber."""

from __future__ import annotations

from typing import Any

from adapters.http import JsonService, Unavailable


class NladClient(JsonService):
    system = "NLAD"

    async def etc_check(self, subject: dict[str, Any]) -> str:
        """NLAD's answer for the subscriber (SUBSCRIBER_NOT_FOUND, TPIV_FAIL_DOB, …), passed on as it is."""
        answer = await self.post("/etc-check", subject)
        result = answer.get("result")
        if not isinstance(result, str) or not result:
            # An answer without a result is as useless as no answer: retried like an outage.
            raise Unavailable(self.system, "answer without a result")
        return result
