"""One sales channel walking an order through the API as a channel would: authenticate, check availability (a
new enrollment id per line), maybe list plans, pay, create the customer with its lines, send a welcome e-mail.
A step that gets no answer (a process killed under it) or an error is sent again, the same request after a
re-authentication, until it succeeds or STEP_SECONDS pass: every repeated request must be harmless."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from soak import bodies

SUCCESS = "RESTAPI000"
STEP_SECONDS = 150.0  # longer than a carrier outage plus a restart: a channel keeps trying that long
PAUSE_SECONDS = 1.0


@dataclass
class Attempt:
    """One create call: when it started (epoch seconds), how long until its answer (None: no answer), and
    whether every line was accepted."""

    started: float
    seconds: float | None
    accepted: bool
    said: str


@dataclass
class Order:
    number: int
    channel: int
    line_count: int
    ports: dict[str, str] = field(default_factory=dict)  # enrollment id → the number it ports in
    enrollment_ids: list[str] = field(default_factory=list)
    paid: bool = False
    accepted: bool = False  # the create answered RESTAPI000 for every line
    line_messages: dict[str, str] = field(default_factory=dict)
    mail_accepted: bool = False
    # Answers with an HTTP status of 500 or more ("<path> <status> <envelope>"): every expected failure (a process
    # or the database restarting) must be an envelope saying so, or no answer at all, never a 500.
    server_errors: list[str] = field(default_factory=list)
    stopped_at: str = ""  # the step it could not get past; empty when it went through
    last_answer: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    steps: dict[str, float] = field(default_factory=dict)  # seconds each step took, its repeats included

    @property
    def parent(self) -> str | None:
        return self.enrollment_ids[0] if self.enrollment_ids else None


class StepFailed(Exception):
    def __init__(self, step: str, said: str) -> None:
        super().__init__(f"{step}: {said}")
        self.step, self.said = step, said


def describe(answer: dict[str, Any]) -> str:
    errors = answer.get("errors")
    return f"{answer.get('msg_code')} {answer.get('msg')}" + (f" {errors}" if errors else "")[:300]


def all_lines_accepted(answer: dict[str, Any], count: int) -> bool:
    data = answer.get("data")
    lines = data if isinstance(data, list) else []
    return (
        answer.get("msg_code") == SUCCESS
        and len(lines) == count
        and all(isinstance(entry, dict) and entry.get("msg_code") == SUCCESS for entry in lines)
    )


class Channel:
    """One channel's token chain over its own HTTP client."""

    def __init__(self, number: int, http: httpx.AsyncClient) -> None:
        self.number = number
        self.http = http
        self.token = ""
        self.order: Order | None = None  # the order under way, whose server errors are noted

    async def _post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        response = await self.http.post(path, json=body, headers=headers)
        if response.status_code >= 500 and self.order is not None:
            self.order.server_errors.append(f"{path} {response.status_code} {response.text[:200]}")
        answer: dict[str, Any] = response.json()
        return answer

    async def _authenticate(self) -> None:
        answer = await self._post("/authenticate", bodies.AUTHENTICATE, {})
        if answer.get("msg_code") != SUCCESS or not answer.get("token"):
            raise StepFailed("authenticate", describe(answer))
        self.token = str(answer["token"])

    async def _once(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if not self.token:
            await self._authenticate()
        answer = await self._post(path, body, {"token": self.token})
        self.token = str(answer.get("token") or "")
        return answer

    async def step(self, order: Order, step: str, path: str, body: dict[str, Any], lines: int = 0) -> Any:
        """The answer's `data` once the step succeeded; StepFailed after STEP_SECONDS of trying. `lines`: the
        step is the create, which every line must be accepted by, and whose every attempt is timed."""
        began = time.monotonic()
        said = ""
        while time.monotonic() < began + STEP_SECONDS:
            started, clock = time.time(), time.perf_counter()
            try:
                answer = await self._once(path, body)
            except (httpx.HTTPError, ValueError, StepFailed) as exc:  # no answer, or not JSON, or no login
                said, self.token = f"no answer: {type(exc).__name__} {exc}"[:300], ""
                if lines:
                    order.attempts.append(Attempt(started, None, False, said))
            else:
                ok = all_lines_accepted(answer, lines) if lines else answer.get("msg_code") == SUCCESS
                said = describe(answer)
                if lines:
                    order.attempts.append(Attempt(started, time.perf_counter() - clock, ok, said))
                if ok:
                    order.steps[step] = order.steps.get(step, 0.0) + time.monotonic() - began
                    return answer.get("data")
                self.token = ""  # a refused request may not carry a usable token: start a new chain
            await asyncio.sleep(PAUSE_SECONDS)
        raise StepFailed(step, said)

    async def run(self, order: Order, port_number_of: list[str | None]) -> None:
        """The whole order; `port_number_of`: per line, the number it ports in (None: a new activation)."""
        self.order = order
        try:
            await self._walk(order, port_number_of)
        except StepFailed as failed:
            order.stopped_at, order.last_answer = failed.step, failed.said

    async def _walk(self, order: Order, port_number_of: list[str | None]) -> None:
        self.token = ""  # each order is a new session, as a point of sale logs in for a customer
        for port_number in port_number_of:
            data = await self.step(order, "check_service_availability", "/enrollment", bodies.AVAILABILITY)
            order.enrollment_ids.append(str(data["enrollment_id"]))
            if port_number is not None:
                order.ports[order.enrollment_ids[-1]] = port_number
        parent = order.enrollment_ids[0]
        if order.number % 2 == 0:
            await self.step(order, "plan_list", "/plan", bodies.PLAN_LIST)
        paid = await self.step(order, "make_payment", "/payment", bodies.payment(parent))
        order.paid = True
        lines = [bodies.order_line(eid, order.ports.get(eid)) for eid in order.enrollment_ids]
        create = bodies.create(parent, lines, str(paid["invoice_number"]))
        created = await self.step(order, "create_customer_prepaid_multiline", "/customer", create, len(lines))
        order.accepted = True
        order.line_messages = {entry["data"]["enrollment_id"]: str(entry["msg"]) for entry in created}
        await self.step(order, "send", "/mail", bodies.mail(parent, lines[0]["email"]))
        order.mail_accepted = True
