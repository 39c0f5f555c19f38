"""`lineup ops …` and `lineup temporal setup`: support and operations commands."""

from __future__ import annotations

# cli/webhooks.py: `lineup webhook add|list|disable`: a vendor's webhook endpoints. The forms are a contract outside checks use
# cli/main.py: `lineup`: the admin CLI (database, vendors, agents, demo data) and the one-machine runner.
import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import typer
from sqlmodel import select

from api.support import MOST_RETRIED, ToResume, all_waiting, one_waiting, resume, waiting
from api.temporal import connect, register
from api.webhooks import Registered, add_endpoint, disable_endpoint, endpoints
from cli.accounts import (
    AdminError,
    AgentSpec,
    create_agent,
    create_api_user,
    create_vendor,
    set_agent_active,
    set_agent_roles,
    set_api_user_active,
    set_vendor_payment_rule,
)
from cli.accounts import seed_demo as seed
from cli.run import run_and_leave
from models import db
from models.auth import ROLES, Vendor
from models.crypto import cipher_for
from models.db import Database, RecordNotFound
from models.enrollment import Pacing
from models.envelope import LineupError
from models.settings import get_settings
from models.support import shown_error, waiting_lines
from workflows.enrollment import ALL

ops_app = typer.Typer(no_args_is_help=True, help="Support: lines waiting for a retry")


temporal_app = typer.Typer(no_args_is_help=True, help="Temporal cluster setup")


@ops_app.command("stuck")
def stuck(limit: Annotated[int, typer.Option(min=1, max=1000)] = 100) -> None:
    """Lists the lines of every vendor waiting for support (STUCK, or RECEIVED and never started), longest
    waiting first, with their last error."""

    async def main() -> None:
        settings = get_settings()
        db = Database(settings)
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
        db, pacing = Database(settings), Pacing.of(settings)
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
        db = Database(settings)
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
        db = Database(settings)
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
        db = Database(settings)
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


app = typer.Typer(no_args_is_help=True, help="Lineup administration")


db_app = typer.Typer(no_args_is_help=True, help="Database schema")


vendor_app = typer.Typer(no_args_is_help=True, help="Vendors")


api_user_app = typer.Typer(no_args_is_help=True, help="API users (credentials for /authenticate)")


agent_app = typer.Typer(no_args_is_help=True, help="Agents")


app.add_typer(db_app, name="db")


app.add_typer(vendor_app, name="vendor")


app.add_typer(api_user_app, name="api-user")


app.add_typer(agent_app, name="agent")


app.add_typer(ops_app, name="ops")


app.add_typer(temporal_app, name="temporal")


app.add_typer(webhook_app, name="webhook")


T = TypeVar("T")


ROLE_NAMES = ", ".join(ROLES)


def with_database(work: Callable[[Database], Awaitable[T]]) -> T:
    """Runs `work` against the configured database; AdminError becomes a clean exit 1."""

    async def main() -> T:
        db = Database(get_settings())
        try:
            return await work(db)
        finally:
            await db.dispose()

    try:
        return asyncio.run(main())
    except AdminError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


@db_app.command("upgrade")
def db_upgrade(revision: str = "head") -> None:
    """Applies the Alembic migrations up to REVISION (default: head)."""
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db.upgrade(settings.db_url, revision)
    typer.echo(f"database at {revision}")


@vendor_app.command("create")
def vendor_create(code: Annotated[str, typer.Option("--vendor-id")], name: str = "") -> None:
    """Creates a vendor (the `vendor_id` channels authenticate with)."""
    created = with_database(lambda s: create_vendor(s, code, name or code))
    typer.echo(f"vendor {code.upper()} {'created' if created else 'already exists'}")


@vendor_app.command("set")
def vendor_set(
    code: Annotated[str, typer.Option("--vendor-id")],
    require_payment: Annotated[
        bool,
        typer.Option(
            "--require-payment/--no-require-payment",
            help="Activate a line only once a settled payment (make_payment) covers its plan",
        ),
    ],
) -> None:
    """Changes a vendor's settings."""
    with_database(lambda s: set_vendor_payment_rule(s, code, require_payment))
    typer.echo(f"vendor {code.upper()}: payment {'required' if require_payment else 'not required'} before activation")


@api_user_app.command("create")
def api_user_create(
    vendor_id: Annotated[str, typer.Option()],
    username: Annotated[str, typer.Option()],
    password: Annotated[str, typer.Option()],
    pin: Annotated[str, typer.Option()],
) -> None:
    """Creates API credentials for /authenticate."""
    created = with_database(lambda s: create_api_user(s, vendor_id, username, password, pin))
    typer.echo(f"api user {username} {'created' if created else 'already exists'}")


@api_user_app.command("disable")
def api_user_disable(vendor_id: str, username: str) -> None:
    """Deactivates an API user: /authenticate refuses it, and its tokens and login-log OTPs end at once."""
    with_database(lambda s: set_api_user_active(s, vendor_id, username, False))
    typer.echo(f"api user {username} disabled")


@api_user_app.command("enable")
def api_user_enable(vendor_id: str, username: str) -> None:
    """Reactivates an API user."""
    with_database(lambda s: set_api_user_active(s, vendor_id, username, True))
    typer.echo(f"api user {username} enabled")


@agent_app.command("create")
def agent_create(
    vendor_id: Annotated[str, typer.Option()],
    username: Annotated[str, typer.Option()],
    password: Annotated[str, typer.Option()],
    pin: Annotated[str | None, typer.Option(help="Also lets the agent authenticate for the API")] = None,
    role: Annotated[list[str] | None, typer.Option(help=f"{ROLE_NAMES}; repeatable (default agent)")] = None,
    email: Annotated[str | None, typer.Option()] = None,
    require_api_password: Annotated[str | None, typer.Option(help="Password every API call must carry")] = None,
) -> None:
    """Creates an agent."""
    spec = AgentSpec(
        vendor_code=vendor_id,
        username=username,
        password=password,
        pin=pin,
        roles=tuple(role or ["agent"]),
        email=email,
        api_password=require_api_password,
    )
    created = with_database(lambda s: create_agent(s, spec))
    typer.echo(f"agent {username} {'created' if created else 'already exists'}")


@agent_app.command("set-roles")
def agent_set_roles(
    vendor_id: Annotated[str, typer.Option()],
    username: Annotated[str, typer.Option()],
    role: Annotated[list[str], typer.Option(help=f"{ROLE_NAMES}; repeatable; replaces the agent's roles")],
) -> None:
    """Replaces the agent's roles (e.g. --role agent --role payments for a storefront's agent)."""
    roles = with_database(lambda s: set_agent_roles(s, vendor_id, username, tuple(role)))
    typer.echo(f"agent {username} of {vendor_id.upper()}: roles {', '.join(roles)}")


# Usernames are unique within a vendor: --vendor-id picks the agent when several vendors have the name.
VendorOfAgent = Annotated[
    str | None, typer.Option("--vendor-id", help="The agent's vendor (needed when several have the name)")
]


@agent_app.command("disable")
def agent_disable(username: str, vendor_id: VendorOfAgent = None) -> None:
    """Deactivates an agent: its agent_id is refused from then on, and its API credentials (--pin) are
    disabled, their tokens and login-log OTPs ending at once."""
    with_database(lambda s: set_agent_active(s, username, False, vendor_code=vendor_id))
    typer.echo(f"agent {username} disabled")


@agent_app.command("enable")
def agent_enable(username: str, vendor_id: VendorOfAgent = None) -> None:
    """Reactivates an agent (and its API credentials)."""
    with_database(lambda s: set_agent_active(s, username, True, vendor_code=vendor_id))
    typer.echo(f"agent {username} enabled")


@app.command("seed-demo")
def seed_demo() -> None:
    """Creates the demo vendors, API users and agents that are missing (safe to run again)."""
    created, granted = with_database(seed)
    given = f"; roles given to {', '.join(granted)}" if granted else ""
    typer.echo(f"demo data ready ({created} records created{given})")


@app.command("run")
def run() -> None:
    """Runs everything on one machine in the foreground: Temporal, sandbox, worker and API."""
    from cli.run import run_all

    raise typer.Exit(run_all(get_settings()))


def main() -> None:
    """The `lineup` console script: the application, then an exit that no Temporal runtime thread can abort
    (cli.exits)."""
    run_and_leave(app)
