"""What the soak counts, read once the load is over: Lineup's own rows (lines, ports, payments, mail) straight from
PostgreSQL (read-only), and what the outside systems did, from the sandbox's ledger and its SMTP sink."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import httpx

from soak.load import Run
from soak.stack import SoakStack

SETTLE_POLL_SECONDS = 2.0
LINES = """
SELECT l.enrollment_id, l.parent_enrollment_id, l.status, l.mdn, l.customer_id, l.email_hash, l.activation_type,
       p.status AS port_status, EXTRACT(EPOCH FROM l.created_at)::float8 AS created_at
FROM line l LEFT JOIN port_in p ON p.enrollment_id = l.enrollment_id
"""
PAYMENTS = "SELECT enrollment_id, status, transaction_id FROM payment"
MAIL = "SELECT idempotency_key, status FROM mail_outbox"


@dataclass
class Evidence:
    """Rows as read: Lineup's (`lines`, `payments`, `outbox`) and the sandbox's (`ledger`, `mail`)."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    payments: list[dict[str, Any]] = field(default_factory=list)
    outbox: list[dict[str, Any]] = field(default_factory=list)
    ledger: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    mail: list[dict[str, Any]] = field(default_factory=list)


def settled(row: dict[str, Any]) -> bool:
    """ACTIVE with its number; a ported line also with its port COMPLETED."""
    done = row["status"] == "ACTIVE" and bool(row["mdn"])
    return done and (row["activation_type"] != "PORTIN" or row["port_status"] == "COMPLETED")


def expected_lines(run: Run) -> set[str]:
    """Every line a create was sent for (accepted or not: an unanswered create may still have been written)."""
    return {eid for order in run.orders if order.paid for eid in order.enrollment_ids}


async def _fetch(url: str, query: str) -> list[dict[str, Any]]:
    connection = await asyncpg.connect(url)
    try:
        return [dict(row) for row in await connection.fetch(query)]
    finally:
        await connection.close()


async def wait_settled(stack: SoakStack, run: Run, seconds: float) -> float:
    """Waits until every line written for the run's orders is settled, or `seconds`; returns the time waited."""
    started = time.monotonic()
    accepted = {eid for order in run.orders if order.accepted for eid in order.enrollment_ids}
    while time.monotonic() - started < seconds:
        try:
            rows = {row["enrollment_id"]: row for row in await _fetch(stack.database_url, LINES)}
        except (OSError, asyncpg.PostgresError):  # the database still restarting after its kill
            await asyncio.sleep(SETTLE_POLL_SECONDS)
            continue
        waiting = [eid for eid in expected_lines(run) if eid in rows and not settled(rows[eid])]
        if not waiting and accepted <= rows.keys():
            break
        await asyncio.sleep(SETTLE_POLL_SECONDS)
    return time.monotonic() - started


async def gather(stack: SoakStack) -> Evidence:
    async with httpx.AsyncClient(base_url=stack.sandbox_url, timeout=60) as http:
        ledger = (await http.get("/sandbox/ledger")).raise_for_status().json()
        mail = (await http.get("/sandbox/mail")).raise_for_status().json()["messages"]
    return Evidence(
        lines=await _fetch(stack.database_url, LINES),
        payments=await _fetch(stack.database_url, PAYMENTS),
        outbox=await _fetch(stack.database_url, MAIL),
        ledger=ledger,
        mail=[{"subject": m["subject"], "message_id": m["message_id"], "received_at": m["received_at"]} for m in mail],
    )
