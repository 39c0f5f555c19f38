"""Rows the overview's tests and its measurement write straight into the tables, as multi-row INSERTs (no
workflow, no carrier): enrollments and lines, their events, port-ins, webhook endpoints with deliveries, and
mail. Each builder takes what a test varies and fills the rest; ids are random, so tests never collide."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Table, insert
from sqlmodel import select

from models.auth import Vendor
from models.db import Database
from models.enrollment.lines import Enrollment, Line
from models.events import LineEvent, WebhookDelivery, WebhookEndpoint
from models.types import utcnow

MOST_PARAMETERS = 30_000  # per statement: under SQLite's 32,766 and asyncpg's 32,767


def new_eid() -> str:
    return f"E{secrets.token_hex(8)}"


async def vendor_ids(db: Database) -> dict[str, int]:
    async with db.transaction() as session:
        return {row.code: row.id for row in (await session.exec(select(Vendor))).all() if row.id is not None}


async def insert_rows(db: Database, table: Any, rows: Sequence[dict[str, Any]]) -> None:
    """`rows` in multi-row INSERTs, as many rows to a statement as the drivers' parameter limit allows."""
    if not rows:
        return
    target: Table = table.__table__
    chunk = max(1, MOST_PARAMETERS // len(target.columns))  # defaults fill the columns a row leaves out
    async with db.transaction() as session:
        for start in range(0, len(rows), chunk):
            await session.execute(insert(target).values(list(rows[start : start + chunk])))


async def insert_many(db: Database, table: Any, rows: Sequence[dict[str, Any]]) -> None:
    """Many rows of one shape at once: the driver's executemany (SQLite's runs in C; compiling one statement
    with thousands of VALUES costs more than inserting them), in transactions of 50,000 rows."""
    target: Table = table.__table__
    for start in range(0, len(rows), 50_000):
        async with db.transaction() as session:
            await session.execute(insert(target), list(rows[start : start + 50_000]))


def enrollment(eid: str, vendor_id: int, at: datetime) -> dict[str, Any]:
    return {
        "enrollment_id": eid,
        "vendor_id": vendor_id,
        "zip_code": "30301",
        "state": "GA",
        "enrollment_type": "NON_LIFELINE",
        "issued_at": at,
    }


def line(
    eid: str,
    vendor_id: int,
    *,
    status: str = "ACTIVE",
    error: str | None = None,
    since: datetime | None = None,
    plan_id: int = 102,
    carrier: str | None = None,
) -> dict[str, Any]:
    at = since or utcnow()
    return {
        "enrollment_id": eid,
        "parent_enrollment_id": eid,
        "order_id": f"order-{eid}",
        "vendor_id": vendor_id,
        "plan_id": plan_id,
        "activation_type": "NEWACTIVATION",
        "enrollment_type": "SHIPMENT",
        "email_hash": "0" * 64,
        "pii": "sealed",
        "status": status,
        "last_error": error,
        "status_since": at,
        "created_at": at,
        "carrier": carrier,
    }


def event(eid: str, vendor_id: int, kind: str, at: datetime, **facts: object) -> dict[str, Any]:
    data = {"enrollment_id": eid, "parent_enrollment_id": eid, "mdn": None, **facts}
    return {
        "public_id": f"evt_{secrets.token_hex(12)}",
        "vendor_id": vendor_id,
        "enrollment_id": eid,
        "type": kind,
        "actor": "lineup",
        "data": json.dumps(data, separators=(",", ":")),
        "created": at,
    }


def port(eid: str, *, status: str, carrier: str, requested: datetime) -> dict[str, Any]:
    return {
        "enrollment_id": eid,
        "port_number": f"404{secrets.randbelow(10**7):07d}",  # one port in progress per number
        "current_carrier": carrier,
        "secrets": "sealed",
        "status": status,
        "requested_at": requested,
    }


async def lines(db: Database, rows: Sequence[dict[str, Any]]) -> None:
    """Lines with the enrollment rows they need."""
    await insert_many(db, Enrollment, [enrollment(r["enrollment_id"], r["vendor_id"], r["created_at"]) for r in rows])
    await insert_many(db, Line, rows)


async def endpoint(
    db: Database, vendor_id: int, *, failing_since: datetime | None, active: bool = True, undelivered: int = 0
) -> str:
    """An endpoint, failing since then (or not), with `undelivered` deliveries failed with a 503."""
    public_id = f"whe_{secrets.token_hex(8)}"
    reason = None if active else "failing for 72 hours"
    row = {
        "public_id": public_id,
        "vendor_id": vendor_id,
        "url": "https://hooks.example/lineup",
        "event_types": "line.activated",
        "secret": "sealed",
        "active": active,
        "disabled_reason": reason,
        "failing_since": failing_since,
        "created_at": utcnow() - timedelta(days=3),
    }
    await insert_rows(db, WebhookEndpoint, [row])
    if undelivered:
        eid = new_eid()
        await insert_rows(db, LineEvent, [event(eid, vendor_id, "line.received", utcnow()) for _ in range(undelivered)])
        async with db.transaction() as session:
            endpoint_id = (
                await session.exec(select(WebhookEndpoint.id).where(WebhookEndpoint.public_id == public_id))
            ).one()
            event_ids = (await session.exec(select(LineEvent.id).where(LineEvent.enrollment_id == eid))).all()
        deliveries = [
            {"endpoint_id": endpoint_id, "event_id": event_id, "status": "FAILED", "attempts": 3, "last_status": 503}
            for event_id in event_ids
        ]
        await insert_rows(db, WebhookDelivery, deliveries)
    return public_id


def mail(vendor_id: int, *, status: str, at: datetime) -> dict[str, Any]:
    return {
        "idempotency_key": f"mail-{secrets.token_hex(8)}",
        "vendor_id": vendor_id,
        "message_id": f"<{secrets.token_hex(8)}@lineup.local>",
        "content": "sealed",
        "recipient_count": 1,
        "status": status,
        "created_at": at,
    }
