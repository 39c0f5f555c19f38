"""A channel talking to the API over HTTP: authenticates, chains single-use tokens, walks the enrollment flow."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import httpx

from bench import bodies

SUCCESS = "RESTAPI000"


class ApiError(RuntimeError):
    """An answer that was not RESTAPI000 where the bench needed one."""


def describe(answer: dict[str, Any]) -> str:
    """An answer in one short line for the report: its code and message, errors, and what its lines said."""
    parts = [f"{answer.get('msg_code')} {answer.get('msg')}"]
    if errors := answer.get("errors"):
        parts.append(f"errors {errors}")
    data = answer.get("data")
    if isinstance(data, list):
        said = Counter(str(entry.get("msg")) for entry in data if isinstance(entry, dict))
        parts.append("lines: " + ", ".join(f"{count}× {msg}" for msg, count in said.items()))
    return "; ".join(parts)[:300]


@dataclass(frozen=True)
class Created:
    """The answer to one create call: how long it took and what every line got."""

    elapsed_ms: float
    ok: bool
    mdns: list[str | None]
    customer_ids: list[str | None]
    answer: dict[str, Any]


async def authenticate(http: httpx.AsyncClient) -> str:
    answer: dict[str, Any] = (await http.post("/authenticate", json=bodies.AUTHENTICATE)).json()
    if answer.get("msg_code") != SUCCESS or not answer.get("token"):
        raise ApiError(f"/authenticate answered {describe(answer)}")
    return str(answer["token"])


class Channel:
    """One sales channel: its own token chain over a shared HTTP client."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.token = ""
        self.request_id = ""  # the last call's x-request-id: Lineup names a lookup's workflow after it

    async def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """Posts with the current token and keeps the answer's; re-authenticates when the chain broke."""
        if not self.token:
            self.token = await authenticate(self.http)
        response = await self.http.post(path, json=body, headers={"token": self.token})
        self.request_id = response.headers.get("x-request-id", "")
        answer: dict[str, Any] = response.json()
        self.token = str(answer.get("token") or "")
        return answer

    async def enrollment_id(self) -> str:
        answer = await self.call("/enrollment", bodies.AVAILABILITY)
        if answer.get("msg_code") != SUCCESS:
            raise ApiError(f"check_service_availability answered {describe(answer)}")
        return str(answer["data"]["enrollment_id"])

    async def create(self, enrollment_ids: list[str], *, portin: bool = False) -> Created:
        """Times create_customer_prepaid_multiline alone (the availability calls before it are setup)."""
        if not self.token:
            self.token = await authenticate(self.http)
        started = time.perf_counter()
        answer = await self.call("/customer", bodies.create_customer(enrollment_ids, portin))
        elapsed = (time.perf_counter() - started) * 1000
        data = answer.get("data")
        lines: list[dict[str, Any]] = data if isinstance(data, list) else []
        records = [(entry.get("data") or {}) for entry in lines]
        ok = answer.get("msg_code") == SUCCESS and len(lines) == len(enrollment_ids)
        ok = ok and all(entry.get("msg_code") == SUCCESS for entry in lines)
        return Created(elapsed, ok, [r.get("mdn") for r in records], [r.get("customer_id") for r in records], answer)


def http_client(base_url: str, connections: int, *, keep_alive: bool = True) -> httpx.AsyncClient:
    """keep_alive False: a new connection per call, so several API processes sharing one socket each accept
    some (kept-alive connections opened in one burst may all go to the process that woke first)."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections if keep_alive else 0)
    return httpx.AsyncClient(base_url=base_url, limits=limits, timeout=httpx.Timeout(120.0))
