"""`lineup ops …` and `lineup temporal setup`: support and operations commands."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest

from activities.lines import LineRepository
from models.crypto import cipher_for
from models.db import make_engine, session_factory
from models.settings import get_settings
from workflows.client import connect
from workflows.search_attributes import ALL
from workflows.signals import retry_line

ops_app = typer.Typer(no_args_is_help=True, help="Support: stuck enrollments")
temporal_app = typer.Typer(no_args_is_help=True, help="Temporal cluster setup")


@ops_app.command("stuck")
def stuck(limit: Annotated[int, typer.Option(min=1, max=1000)] = 100) -> None:
    """Lists stuck lines of every vendor, oldest first, with their last error."""

    async def main() -> None:
        settings = get_settings()
        engine = make_engine(settings)
        try:
            lines = await LineRepository(session_factory(engine), cipher_for(settings)).stuck(vendor_id=None, limit=limit)
        finally:
            await engine.dispose()
        if not lines:
            typer.echo("no stuck lines")
        for line in lines:
            typer.echo(f"{line.enrollment_id}\t{line.parent_enrollment_id}\t{line.status_since:%Y-%m-%d %H:%M:%S}\t{line.last_error}")

    asyncio.run(main())


@ops_app.command("retry")
def retry(enrollment_id: str) -> None:
    """Signals a stuck line's workflow to try its failed step again."""

    async def main() -> None:
        await retry_line(await connect(get_settings()), enrollment_id)

    asyncio.run(main())
    typer.echo(f"retry sent to line-{enrollment_id}")


@temporal_app.command("setup")
def setup() -> None:
    """Registers Lineup's search attributes in the namespace (idempotent; needed once per cluster)."""

    async def main() -> None:
        settings = get_settings()
        client = await connect(settings)
        request = AddSearchAttributesRequest(
            namespace=settings.temporal_namespace,
            search_attributes={key.name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for key in ALL},
        )
        await client.operator_service.add_search_attributes(request)

    asyncio.run(main())
    typer.echo("search attributes registered: " + ", ".join(key.name for key in ALL))
