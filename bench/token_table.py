"""T6: the token table stays bounded. Chained requests over HTTP for a while, the table filled up to
100,000 rows with spent tokens inserted directly, then the `lineup-sweep` schedule triggered now and its
SweepWorkflow run awaited; the row count before and after."""

from __future__ import annotations

import asyncio
import secrets
import time
from datetime import timedelta
from typing import Any

from sqlmodel import col
from temporalio.client import Client, ScheduleActionExecutionStartWorkflow

from api.temporal import connect, sweep_schedule_id
from bench import bodies
from bench.context import Context
from bench.load import Load, run_load
from bench.stack_db import count, demo_owner, insert_rows, stack_database, stack_settings
from bench.stats import Figure, Goal
from bench.throughput import fresh_tokens
from models.auth import ApiToken, digest
from models.support import SweepReport
from models.types import utcnow

TOKEN_ROWS = 100_000
SPENT_AGO = timedelta(days=2)  # older than any retention the stack may run with
SWEEP_TIMEOUT_SECONDS = 180.0
CONNECTIONS = 32


def spent_tokens(vendor_id: int, api_user_id: int, how_many: int) -> list[dict[str, Any]]:
    """Tokens as /authenticate and every answer issue them, used long ago: what traffic leaves behind."""
    used = utcnow() - SPENT_AGO
    issued = used - timedelta(seconds=1)
    return [
        {
            "token_hash": digest(secrets.token_urlsafe(32)),
            "vendor_id": vendor_id,
            "api_user_id": api_user_id,
            "issued_at": issued,
            "expires_at": issued + timedelta(minutes=15),
            "used_at": used,
        }
        for _ in range(how_many)
    ]


async def sweep_now(client: Client, schedule_id: str) -> tuple[SweepReport, str, float]:
    """Triggers the schedule (as `temporal schedule trigger` does) and waits for the run it started."""
    schedule = client.get_schedule_handle(schedule_id)
    done_before = (await schedule.describe()).info.num_actions
    started = time.monotonic()
    await schedule.trigger()
    while True:
        info = (await schedule.describe()).info
        action = info.recent_actions[-1].action if info.recent_actions else None
        if info.num_actions > done_before and isinstance(action, ScheduleActionExecutionStartWorkflow):
            break
        if time.monotonic() - started > SWEEP_TIMEOUT_SECONDS:
            raise TimeoutError(f"schedule {schedule_id} started no workflow within {SWEEP_TIMEOUT_SECONDS:.0f} s")
        await asyncio.sleep(0.2)
    workflow_id, run_id = action.workflow_id, action.first_execution_run_id
    handle = client.get_workflow_handle(workflow_id, run_id=run_id, result_type=SweepReport)
    report = await asyncio.wait_for(handle.result(), SWEEP_TIMEOUT_SECONDS)
    return report, workflow_id, time.monotonic() - started


async def t6_token_table(ctx: Context) -> list[Figure]:
    settings = stack_settings(ctx.stack)
    async with stack_database(ctx.stack) as engine:
        tokens = await fresh_tokens(ctx.http, CONNECTIONS)
        load = Load(
            ctx.stack.api_url,
            "/agent",
            bodies.UPDATE_LOCATION,
            bodies.AUTHENTICATE,
            tokens,
            ctx.budget.token_load_s,
            ctx.stack.data_dir / "load-t6",
        )
        result = await run_load(load, ctx.tool)
        via_http = await count(engine, ApiToken)
        inserted = max(0, TOKEN_ROWS - via_http)
        vendor_id, api_user_id = await demo_owner(engine)
        async with engine.begin() as connection:
            await insert_rows(connection, ApiToken, spent_tokens(vendor_id, api_user_id, inserted))
        before = await count(engine, ApiToken)
        # What the purge must keep at most: a token lives its TTL unused, then is kept for the retention.
        window = timedelta(hours=settings.auth.token_retention_hours, seconds=settings.auth.token_ttl_seconds)
        bound = await count(engine, ApiToken, col(ApiToken.issued_at) >= utcnow() - window)
        # The sweep's report comes back encrypted as every payload does: read with the stack's own key.
        report, workflow_id, seconds = await sweep_now(await connect(settings), sweep_schedule_id(settings))
        after = await count(engine, ApiToken)
    how = (
        f"{via_http:,} rows via HTTP ({result.requests:,} chained update_location_coordinate in {result.seconds:.0f} s"
        f" with {result.tool}, {CONNECTIONS} conns, {result.errors} errors), the rest ({inserted:,}) inserted as"
        f" tokens used {SPENT_AGO.days} days ago"
    )
    retention = f"LINEUP_TOKEN_RETENTION_HOURS={settings.auth.token_retention_hours:g}"
    figures = [
        Figure(
            ctx.key("T6", "rows_before"),
            "T6",
            f"{ctx.db}: token rows before the sweep",
            "count",
            value=float(before),
            count=before,
            note=how,
        ),
        Figure(
            ctx.key("T6", "rows_after"),
            "T6",
            f"{ctx.db}: token rows after one lineup-sweep run",
            "count",
            value=float(after),
            count=before,
            goal=Goal("value", "<=", float(bound)),
            note=f"{workflow_id} purged {report.tokens_purged:,} in {seconds:.1f} s from the trigger ({retention});"
            f" goal: at most the {bound:,} tokens issued within retention + TTL"
            f" ({window.total_seconds():,.0f} s) before the trigger",
            extra={
                "via_http": via_http,
                "inserted": inserted,
                "purged": report.tokens_purged,
                "bound": bound,
                "sweep_seconds": round(seconds, 2),
                "http_requests": result.requests,
            },
        ),
    ]
    return figures
