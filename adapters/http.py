"""What every outside HTTP system shares: timeouts, the down/rejected split, idempotency headers."""

from __future__ import annotations

from typing import Any

import httpx

TIMEOUT = httpx.Timeout(10.0, connect=3.0)


class Unavailable(Exception):
    """The system did not answer usefully (connection error, timeout, 5xx): worth retrying."""

    def __init__(self, system: str, reason: str) -> None:
        super().__init__(f"{system} is unavailable: {reason}")
        self.system = system


class Rejected(Exception):
    """The system answered with a business "no" (a non-00 STATUSCODE): retrying will not change it."""

    def __init__(self, code: str, description: str) -> None:
        super().__init__(f"{code} {description}")
        self.code, self.description = code, description


class JsonService:
    """POSTs JSON to one base URL and maps transport failures to Unavailable."""

    system = "service"

    def __init__(self, base_url: str, client: httpx.AsyncClient | None = None) -> None:
        self._base = base_url.rstrip("/")
        self._client = client or httpx.AsyncClient(timeout=TIMEOUT)

    async def post(self, path: str, body: dict[str, Any], *, key: str | None = None) -> dict[str, Any]:
        headers = {"Idempotency-Key": key} if key else {}
        try:
            response = await self._client.post(f"{self._base}{path}", json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise Unavailable(self.system, type(exc).__name__) from None
        if response.status_code >= 500:
            raise Unavailable(self.system, f"HTTP {response.status_code}")
        if response.status_code >= 400:
            # Our request was wrong: a bug, not an outage; retrying cannot help.
            raise Rejected(str(response.status_code), f"{self.system} refused the request")
        answer: dict[str, Any] = response.json()
        return answer

    async def close(self) -> None:
        await self._client.aclose()
