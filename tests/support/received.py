"""What an activity works from, made as the service makes it: lines stored by customer intake through an API
whose Temporal is unreachable (rows RECEIVED, their PII sealed, no workflow started), the order as its workflow
gets it, and the sandbox's own record and faults. For activities tested alone with ActivityEnvironment."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import httpx
from sqlmodel import select
from temporalio.testing import ActivityEnvironment

from models.db import Database
from models.enrollment.lines import EnrollmentOrder, Line, Pacing, orders_of
from tests.support.builders import body, create, line


def retried() -> ActivityEnvironment:
    """An ActivityEnvironment of Temporal's second attempt (the first one's answer was lost)."""
    env = ActivityEnvironment()
    env.info = replace(env.info, attempt=2)
    return env


async def new_enrollment_id(api: Any) -> str:
    answer = await api.call("/enrollment", body("check_service_availability"))
    assert answer["msg_code"] == "RESTAPI000", answer
    enrollment_id: str = answer["data"]["enrollment_id"]
    return enrollment_id


async def received(api: Any, *lines: dict[str, Any]) -> list[str]:
    """One order of a line per `lines` item (its overrides of tests.support.builders.line), stored RECEIVED;
    the first is the account holder. The API fixture's Temporal is unreachable, so intake answers that the
    workflow engine is away and starts nothing."""
    overrides = lines or ({},)
    ids = [await new_enrollment_id(api) for _ in overrides]
    answer = await api.call(
        "/customer", create(ids[0], *(line(eid, **o) for eid, o in zip(ids, overrides, strict=True)))
    )
    assert answer["errors"] == ["The workflow engine is unavailable, please try again later"], answer
    return ids


async def with_customer(api: Any, **overrides: Any) -> str:
    """A line as intake stores it: RECEIVED with its customer record."""
    [enrollment_id] = await received(api, overrides)
    return enrollment_id


async def order_of(db: Database, enrollment_id: str) -> EnrollmentOrder:
    """The order of the line as its workflow would get it."""
    async with db.transaction() as session:
        of_line = select(Line.order_id).where(Line.enrollment_id == enrollment_id)
        [order] = await orders_of(session, of_line, pacing=Pacing())
    return order


async def carrier_lines(sandbox_url: str, enrollment_id: str) -> list[dict[str, Any]]:
    """The lines the carrier sandbox holds for an enrollment: a second activation would show here."""
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"{sandbox_url}/sandbox/carrier/lines", params={"enrollment_id": enrollment_id})
        found: list[dict[str, Any]] = answer.raise_for_status().json()["lines"]
        return found


@asynccontextmanager
async def carrier_down(sandbox_url: str) -> AsyncIterator[None]:
    """Every carrier and NLAD call of the sandbox answered 503 inside the block (the session's sandbox is this
    process's alone: xdist's processes each have their own)."""
    async with httpx.AsyncClient() as http:
        (await http.post(f"{sandbox_url}/sandbox/faults", json={"fault_rate": 1})).raise_for_status()
        try:
            yield
        finally:
            (await http.post(f"{sandbox_url}/sandbox/faults", json={"fault_rate": 0})).raise_for_status()
