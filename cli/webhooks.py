"""`lineup webhook add|list|disable`: a vendor's webhook endpoints. The forms are a contract outside checks use
(issue 21): `add --vendor-id V --url URL [--events TYPE,…]` prints `id: <id>` and `secret: <secret>`; `list
--vendor-id V` one endpoint a line; `disable ID`."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from sqlmodel import select

from models.crypto import cipher_for
from models.errors import LineupError
from models.settings import get_settings
from models.tables.auth import Vendor
from persistence.engine import Database
from persistence.errors import RecordNotFound
from services.webhooks import Registered, add_endpoint, disable_endpoint, endpoints

webhook_app = typer.Typer(no_args_is_help=True, help="Webhook endpoints: signed events of a vendor's lines")


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(1)


async def _vendor_id(db: Database, code: str) -> int:
    async with db.transaction() as session:
        vendor = (await session.exec(select(Vendor).where(Vendor.code == code.upper()))).first()
    if vendor is None or vendor.id is None:
        raise RecordNotFound(f"unknown vendor {code}")
    return vendor.id


@webhook_app.command("add")
def add(
    vendor_id: Annotated[str, typer.Option("--vendor-id")],
    url: Annotated[str, typer.Option("--url")],
    events: Annotated[str | None, typer.Option("--events", help="TYPE,… (default: every type)")] = None,
) -> None:
    """Registers an endpoint; prints its id and its signing secret (shown this once)."""

    async def main() -> Registered:
        settings = get_settings()
        db = Database.open(settings)
        try:
            vendor = await _vendor_id(db, vendor_id)
            async with db.transaction() as session:
                return await add_endpoint(
                    session, cipher_for(settings), settings, vendor_id=vendor, url=url, events=events
                )
        finally:
            await db.dispose()

    try:
        registered = asyncio.run(main())
    except LineupError as refused:
        raise _fail("; ".join(refused.errors or [refused.msg])) from None
    except RecordNotFound as missing:
        raise _fail(str(missing)) from None
    typer.echo(f"id: {registered.endpoint.public_id}")
    typer.echo(f"secret: {registered.secret}")
    typer.echo(f"events: {registered.endpoint.event_types}")
    typer.echo("The secret is shown only now: store it where the receiver verifies signatures.")


@webhook_app.command("list")
def list_endpoints(vendor_id: Annotated[str, typer.Option("--vendor-id")]) -> None:
    """The vendor's endpoints: id, state, URL, event types (and why a disabled one was disabled)."""

    async def main() -> list[str]:
        settings = get_settings()
        db = Database.open(settings)
        try:
            vendor = await _vendor_id(db, vendor_id)
            async with db.transaction() as session:
                found = await endpoints(session, vendor)
        finally:
            await db.dispose()
        return [
            "\t".join(
                [e.public_id, "active" if e.active else "disabled", e.url, e.event_types, e.disabled_reason or ""]
            )
            for e in found
        ]

    try:
        rows = asyncio.run(main())
    except RecordNotFound as missing:
        raise _fail(str(missing)) from None
    for row in rows:
        typer.echo(row.rstrip("\t"))
    if not rows:
        typer.echo("no webhook endpoints")


@webhook_app.command("disable")
def disable(endpoint_id: Annotated[str, typer.Argument(help="The endpoint's id (whe_…)")]) -> None:
    """Switches an endpoint off: nothing more is delivered to it."""

    async def main() -> None:
        settings = get_settings()
        db = Database.open(settings)
        try:
            async with db.transaction() as session:
                await disable_endpoint(session, endpoint_id, vendor_id=None, by="an operator (CLI)")
        finally:
            await db.dispose()

    try:
        asyncio.run(main())
    except RecordNotFound as missing:
        raise _fail(str(missing)) from None
    typer.echo(f"endpoint {endpoint_id} disabled")
