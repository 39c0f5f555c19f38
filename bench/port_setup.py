"""T5's ports, built the way a PORTIN line leaves them when it starts its PortInWorkflow: the port
submitted to the sandbox carrier over HTTP (a number ending 96, which the sandbox never completes), the
`enrollment`, `line` and `port_in` rows inserted into the stack's database, and PortInWorkflow started
with the Temporal client, with the PortStart input and workflow id the order gives it. Creating
10,000 PORTIN enrollments over HTTP instead would take most of an hour on 2 cores."""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.context import Context
from bench.stack_db import demo_owner, insert_rows, stack_settings
from models.enrollment.lines import Enrollment, Line, LineStatus, Pacing
from models.porting import PortIn, PortStart, PortStatus, PortSubmission
from models.types import utcnow
from workflows.enrollment import port_workflow_id
from workflows.porting import PortInWorkflow

START_CONCURRENCY = 32  # 4 works them off no faster: the server and the worker set the pace
SUBMIT_CONCURRENCY = 16
DAY_S = 86_400.0


@dataclass
class Ports:
    """The ports prepared: (enrollment id, the sandbox's port id), and how long preparing took."""

    ids: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0


def port_number(index: int) -> str:
    """A valid number ending 96: the sandbox leaves such a port SUBMITTED forever (sandbox/ports.py)."""
    return f"404{2_000_096 + 100 * index}"


def port_request(index: int, enrollment_id: str) -> dict[str, str]:
    return {
        "vendor_id": "DEMO",
        "enrollment_id": enrollment_id,
        "port_number": port_number(index),
        "current_carrier": "ATT",
        "account_number": "ACC12345",
        "account_password": "1234",
        "first_name": "Pat",
        "last_name": "Lee",
        "address_one": "12 Main St",
        "city": "Atlanta",
        "state": "GA",
        "zip": "30301",
    }


async def submit_ports(sandbox_url: str, enrollment_ids: list[str]) -> list[str]:
    """Each port submitted to the sandbox carrier as the line workflow's submit_port does."""
    gate = asyncio.Semaphore(SUBMIT_CONCURRENCY)
    async with httpx.AsyncClient(base_url=sandbox_url, timeout=60) as http:

        async def submit(index: int, enrollment_id: str) -> str:
            async with gate:
                response = await http.post(
                    "/carrier/ports",
                    json=port_request(index, enrollment_id),
                    headers={"Idempotency-Key": enrollment_id},
                )
            answer = response.json()
            if answer.get("STATUSCODE") != "00":
                raise RuntimeError(f"the sandbox refused port {port_number(index)}: {answer}")
            return str(answer["PORT_ID"])

        return list(await asyncio.gather(*(submit(i, eid) for i, eid in enumerate(enrollment_ids))))


def line_rows(enrollment_ids: list[str], port_ids: list[str], vendor_id: int) -> dict[Any, list[dict[str, Any]]]:
    """The rows of PORTIN lines whose ports are submitted (PII and port secrets are placeholders: a poll
    reads neither)."""
    now = utcnow()
    rows: dict[Any, list[dict[str, Any]]] = {Enrollment: [], Line: [], PortIn: []}
    for index, (enrollment_id, port_id) in enumerate(zip(enrollment_ids, port_ids, strict=True)):
        order = f"bench-ports-{enrollment_id}"
        rows[Enrollment].append(
            {
                "enrollment_id": enrollment_id,
                "vendor_id": vendor_id,
                "zip_code": "30301",
                "state": "GA",
                "issued_at": now,
                "claimed_by": order,
                "claimed_at": now,
            }
        )
        rows[Line].append(
            {
                "enrollment_id": enrollment_id,
                "parent_enrollment_id": enrollment_id,
                "order_id": order,
                "vendor_id": vendor_id,
                "agent_username": "demo.agent",
                "plan_id": 102,
                "activation_type": "PORTIN",
                "enrollment_type": "SHIPMENT",
                "email_hash": "0" * 64,
                "pii": "bench",
                "status": LineStatus.PORT_PENDING.value,
                "status_since": now,
                "created_at": now,
            }
        )
        rows[PortIn].append(
            {
                "enrollment_id": enrollment_id,
                "port_number": port_number(index),
                "current_carrier": "ATT",
                "secrets": "bench",
                "carrier_port_id": port_id,
                "status": PortStatus.SUBMITTED.value,
                "requested_at": now,
            }
        )
    return rows


async def prepare(ctx: Context, engine: AsyncEngine, how_many: int) -> Ports:
    began = time.monotonic()
    enrollment_ids = [f"EBP{secrets.token_hex(3).upper()}{index:06d}" for index in range(how_many)]
    sandbox = f"http://127.0.0.1:{ctx.stack.env['LINEUP_SANDBOX_PORT']}"
    port_ids = await submit_ports(sandbox, enrollment_ids)
    vendor_id, _ = await demo_owner(engine)
    async with engine.begin() as connection:
        for table, rows in line_rows(enrollment_ids, port_ids, vendor_id).items():
            await insert_rows(connection, table, rows)
    return Ports(list(zip(enrollment_ids, port_ids, strict=True)), time.monotonic() - began)


async def start_all(
    ctx: Context, ports: list[tuple[str, str]], fire_at: float | None, stop_at: float, at_once: int = START_CONCURRENCY
) -> list[str]:
    """Starts a PortInWorkflow per port, `at_once` at a time; with `fire_at` (epoch seconds) its first poll
    is due then, else in a day. Stops starting at `stop_at` (epoch); returns the enrollment ids started."""
    queue = stack_settings(ctx.stack).temporal.task_queue
    gate, started = asyncio.Semaphore(at_once), []

    async def start(enrollment_id: str, port_id: str) -> None:
        async with gate:
            if time.time() >= stop_at:
                return
            poll = fire_at - time.time() if fire_at is not None else DAY_S
            submitted = PortSubmission(port_id, utcnow().isoformat())
            watch = PortStart(enrollment_id, "DEMO", Pacing(port_poll_seconds=poll), submitted=submitted)
            await ctx.temporal.start_workflow(
                PortInWorkflow.run, watch, id=port_workflow_id(enrollment_id), task_queue=queue
            )
            started.append(enrollment_id)

    await asyncio.gather(*(start(eid, pid) for eid, pid in ports))
    return started


async def end_all(ctx: Context, enrollment_ids: list[str]) -> None:
    """Terminates these ports' workflows (the measured round's: they would poll again every minute or so)."""
    gate = asyncio.Semaphore(START_CONCURRENCY)

    async def end(enrollment_id: str) -> None:
        async with gate:
            await ctx.temporal.get_workflow_handle(port_workflow_id(enrollment_id)).terminate(reason="bench: measured")

    await asyncio.gather(*(end(eid) for eid in enrollment_ids))
