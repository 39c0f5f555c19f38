"""`lineup ops …` and `lineup temporal setup`: support and operations commands."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from models.errors import LineupError
from models.messages.enrollment import Pacing
from models.settings import get_settings
from orchestration.client import connect
from persistence.engine import Database
from persistence.support import shown_error, waiting_lines
from services.support.retries import MOST_RETRIED, ToResume, all_waiting, one_waiting, resume, waiting
from workflows.search_attributes import ALL, register

ops_app = typer.Typer(no_args_is_help=True, help="Support: lines waiting for a retry")
temporal_app = typer.Typer(no_args_is_help=True, help="Temporal cluster setup")


@ops_app.command("stuck")
def stuck(limit: Annotated[int, typer.Option(min=1, max=1000)] = 100) -> None:
    """Lists the lines of every vendor waiting for support (STUCK, or RECEIVED and never started), longest
    waiting first, with their last error."""

    async def main() -> None:
        settings = get_settings()
        db = Database.open(settings)
        try:
            async with db.transaction() as session:
                lines = await waiting_lines(session, waiting(settings), vendor_id=None, limit=limit)
        finally:
            await db.dispose()
        if not lines:
            typer.echo("no stuck lines")
        for line in lines:
            since = f"{line.status_since:%Y-%m-%d %H:%M:%S}"
            typer.echo(f"{line.enrollment_id}\t{line.parent_enrollment_id}\t{since}\t{shown_error(line)}")

    asyncio.run(main())


@ops_app.command("retry")
def retry(
    enrollment_id: Annotated[str | None, typer.Argument(help="The line to retry; or --all")] = None,
    every: Annotated[bool, typer.Option("--all", help=f"Every waiting line, at most {MOST_RETRIED} a run")] = False,
    error: Annotated[str | None, typer.Option(help="--all: only lines whose last error contains this")] = None,
    older_than: Annotated[int | None, typer.Option(min=1, help="--all: only lines waiting this many minutes")] = None,
) -> None:
    """Retries a line waiting for support, or with --all every one (of every vendor): a stuck line's workflow
    tries its failed step again, a line that never started has its order's workflow started."""
    if every == (enrollment_id is not None) or (not every and (error or older_than)):
        raise typer.BadParameter("give an ENROLLMENT_ID, or --all with optional --error and --older-than")

    async def main() -> tuple[list[str], int]:
        settings = get_settings()
        db, pacing = Database.open(settings), Pacing.of(settings)
        try:
            async with db.transaction() as session:
                found: ToResume = (
                    await all_waiting(
                        session,
                        waiting(settings, error_contains=error, stuck_minutes=older_than),
                        vendor_id=None,
                        pacing=pacing,
                    )
                    if enrollment_id is None
                    else await one_waiting(session, enrollment_id, vendor_id=None, pacing=pacing)
                )
            if not found.lines:
                return [], 0
            client = await connect(settings)
            resumed = await resume(
                found,
                client=client,
                task_queue=settings.temporal.task_queue,
                rpc_seconds=settings.temporal.rpc_seconds,
                transaction=db.transaction,
            )
        finally:
            await db.dispose()
        return resumed, found.remaining

    try:
        retried, remaining = asyncio.run(main())
    except LineupError as refused:
        typer.echo("; ".join(refused.errors or [refused.msg]), err=True)
        raise typer.Exit(1) from None
    if enrollment_id is not None and not retried:
        typer.echo(f"Enrollment {enrollment_id} has no workflow to retry", err=True)
        raise typer.Exit(1)
    for line_id in retried:
        typer.echo(f"retried {line_id}")
    if every:
        more = f"; {remaining} more waiting, run it again" if remaining else ""
        typer.echo(f"{len(retried)} lines retried{more}")


@temporal_app.command("setup")
def setup() -> None:
    """Registers Lineup's search attributes in the namespace (idempotent; needed once per cluster)."""

    async def main() -> None:
        settings = get_settings()
        await register(await connect(settings), settings.temporal.namespace)

    asyncio.run(main())
    typer.echo("search attributes registered: " + ", ".join(key.name for key in ALL))
