"""`lineup`: the admin CLI (database, vendors, API users, agents, demo data, support's retries, webhook endpoints,
Temporal setup) and `lineup run`, the one-machine runner (cli/run.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import traceback
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import typer
from sqlmodel import select

from api.support import MOST_RETRIED, all_waiting, one_waiting, resume, waiting
from api.temporal import connect, register
from api.webhooks import Registered, add_endpoint, disable_endpoint, endpoints
from cli import accounts
from cli.run import run_all
from models.auth import PRIVILEGED, ROLES, Vendor
from models.crypto import cipher_for
from models.db import Database, RecordNotFound, Session, upgrade
from models.enrollment.lines import Line, Pacing
from models.envelope import LineupError
from models.events import WebhookEndpoint
from models.settings import get_settings
from models.support import shown_error, waiting_lines
from workflows.enrollment import ALL

T = TypeVar("T")

app = typer.Typer(no_args_is_help=True, help="Lineup administration")
db_app = typer.Typer(no_args_is_help=True, help="Database schema")
vendor_app = typer.Typer(no_args_is_help=True, help="Vendors")
api_user_app = typer.Typer(no_args_is_help=True, help="API users (credentials for /authenticate)")
agent_app = typer.Typer(no_args_is_help=True, help="Agents: create, list, set their roles, disable or enable")
ops_app = typer.Typer(no_args_is_help=True, help="Support: lines waiting for a retry")
temporal_app = typer.Typer(no_args_is_help=True, help="Temporal cluster setup")
webhook_app = typer.Typer(no_args_is_help=True, help="Webhook endpoints: signed events of a vendor's lines")
app.add_typer(db_app, name="db")
app.add_typer(vendor_app, name="vendor")
app.add_typer(api_user_app, name="api-user")
app.add_typer(agent_app, name="agent")
app.add_typer(ops_app, name="ops")
app.add_typer(temporal_app, name="temporal")
app.add_typer(webhook_app, name="webhook")

ROLE_NAMES = ", ".join(ROLES)
NEEDS_API_PASSWORD = " and ".join(role for role in ROLES if role in PRIVILEGED)
RequireApiPassword = Annotated[
    str | None,
    typer.Option(
        help=f"The agent's API password: every API call naming it must carry it as agent_password (needed, or "
        f"--no-api-password, for {NEEDS_API_PASSWORD})"
    ),
]
NoApiPassword = Annotated[
    bool,
    typer.Option(
        "--no-api-password",
        help=f"The agent goes without an API password (with {NEEDS_API_PASSWORD}: a warning; any holder of the "
        "vendor's API credentials can then act as it)",
    ),
]
UNGUARDED = "no-api-password"  # `agent list`'s fourth column, on support and admin agents without an API password
VendorOfAgent = Annotated[
    str | None, typer.Option("--vendor-id", help="The agent's vendor (needed when several have the name)")
]


def main() -> None:
    """The `lineup` console script: leaves through `os._exit` with its command's exit code once its output is out.
    A process that opened a Temporal client sometimes aborts in the interpreter's teardown after its work succeeded
    (exit 134, "PyGILState_Release": the SDK's runtime threads outlive it, temporalio/sdk-python#300)."""
    try:
        app()
        code = 0
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            code = exit_.code or 0
        else:  # a message: printed, and exit code 1, as the interpreter does
            print(exit_.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        code = 130  # as a shell reports SIGINT
    except Exception:  # noqa: BLE001 — a defect: its traceback is printed, as the interpreter would
        traceback.print_exc()
        code = 1
    logging.shutdown()  # flushes the handlers, as the interpreter's exit would
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream: nothing more can be said
            stream.flush()
    os._exit(code)


@app.command("seed-demo")
def seed_demo() -> None:
    """Creates the demo vendors, API users and agents that are missing (safe to run again)."""
    created, granted, secured = _run(accounts.seed_demo)
    given = f"; roles given to {', '.join(granted)}" if granted else ""
    given += f"; API password given to {', '.join(secured)}" if secured else ""
    typer.echo(f"demo data ready ({created} records created{given})")


@app.command("run")
def run() -> None:
    """Runs everything on one machine in the foreground: Temporal, sandbox, worker and API."""
    raise typer.Exit(run_all(get_settings()))


@db_app.command("upgrade")
def db_upgrade(revision: str = "head") -> None:
    """Applies the Alembic migrations up to REVISION (default: head)."""
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    # A migration's warnings (0023: support and admin agents without an API password) on stderr, a line each;
    # alembic's own logger has only a NullHandler, which would swallow them.
    warnings = logging.StreamHandler(sys.stderr)
    warnings.setLevel(logging.WARNING)
    warnings.setFormatter(logging.Formatter("warning: %(message)s"))
    logging.getLogger("alembic").addHandler(warnings)
    try:
        upgrade(settings.db_url, revision)
    finally:
        logging.getLogger("alembic").removeHandler(warnings)
    typer.echo(f"database at {revision}")


@vendor_app.command("create")
def vendor_create(code: Annotated[str, typer.Option("--vendor-id")], name: str = "") -> None:
    """Creates a vendor (the `vendor_id` channels authenticate with)."""
    created = _run(lambda db: accounts.create_vendor(db, code, name or code))
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
    _run(lambda db: accounts.set_vendor_payment_rule(db, code, require_payment))
    typer.echo(f"vendor {code.upper()}: payment {'required' if require_payment else 'not required'} before activation")


@api_user_app.command("create")
def api_user_create(
    vendor_id: Annotated[str, typer.Option()],
    username: Annotated[str, typer.Option()],
    password: Annotated[str, typer.Option()],
    pin: Annotated[str, typer.Option()],
) -> None:
    """Creates API credentials for /authenticate."""
    created = _run(lambda db: accounts.create_api_user(db, vendor_id, username, password, pin))
    typer.echo(f"api user {username} {'created' if created else 'already exists'}")


@api_user_app.command("disable")
def api_user_disable(vendor_id: str, username: str) -> None:
    """Deactivates an API user: /authenticate refuses it, and its tokens and login-log OTPs end at once."""
    _run(lambda db: accounts.set_api_user_active(db, vendor_id, username, False))
    typer.echo(f"api user {username} disabled")


@api_user_app.command("enable")
def api_user_enable(vendor_id: str, username: str) -> None:
    """Reactivates an API user."""
    _run(lambda db: accounts.set_api_user_active(db, vendor_id, username, True))
    typer.echo(f"api user {username} enabled")


@agent_app.command("create")
def agent_create(
    vendor_id: Annotated[str, typer.Option()],
    username: Annotated[str, typer.Option()],
    password: Annotated[str, typer.Option()],
    pin: Annotated[str | None, typer.Option(help="Also lets the agent authenticate for the API")] = None,
    role: Annotated[list[str] | None, typer.Option(help=f"{ROLE_NAMES}; repeatable (default agent)")] = None,
    email: Annotated[str | None, typer.Option()] = None,
    require_api_password: RequireApiPassword = None,
    no_api_password: NoApiPassword = False,
) -> None:
    """Creates an agent; refuses one its vendor already has.

    A refused create changes nothing (not the password, roles, e-mail or API password) and exits 1, naming the
    agent's roles, whether it is active, and the `lineup agent set-roles` command that changes its roles. An agent
    with support or admin needs --require-api-password, or --no-api-password (which warns); neither: exit 1.
    With --pin, the agent's own API credentials act as this agent only."""
    roles = tuple(role or ["agent"])
    spec = accounts.AgentSpec(
        vendor_id,
        username,
        password,
        pin=pin,
        roles=roles,
        email=email,
        api_password=require_api_password,
        no_api_password=no_api_password,
    )
    warning = _run(lambda db: accounts.add_agent(db, spec))
    typer.echo(f"agent {username} created")
    if warning:
        typer.echo(warning, err=True)


@agent_app.command("list")
def agent_list(vendor_id: Annotated[str, typer.Option("--vendor-id", help="The vendor's code (any case)")]) -> None:
    """Lists the vendor's agents with their roles and whether they are active.

    One line an agent, sorted by username: USERNAME, ROLES (comma-separated) and active or inactive, separated by
    tabs (e.g. "demo.agent<TAB>agent,payments<TAB>active"); never a password. A support or admin agent without an
    API password has a fourth field, "no-api-password". A vendor without agents prints no line (a note on stderr)
    and exits 0; an unknown vendor exits 1."""
    agents = _run(lambda db: accounts.agents_of(db, vendor_id))
    for agent in agents:
        fields = [agent.username, ",".join(agent.roles), "active" if agent.active else "inactive"]
        typer.echo("\t".join(fields + ([UNGUARDED] if agent.unguarded else [])))
    if not agents:  # on stderr: a script reading the list gets no line that is not an agent
        typer.echo(f"vendor {vendor_id.upper()} has no agents", err=True)


@agent_app.command("set-roles")
def agent_set_roles(
    vendor_id: Annotated[str, typer.Option()],
    username: Annotated[str, typer.Option()],
    role: Annotated[list[str], typer.Option(help=f"{ROLE_NAMES}; repeatable; replaces the agent's roles")],
    require_api_password: RequireApiPassword = None,
    no_api_password: NoApiPassword = False,
) -> None:
    """Replaces the agent's roles (e.g. --role agent --role payments for a storefront's agent).

    Giving support or admin to an agent without an API password needs --require-api-password, or
    --no-api-password (which warns); neither: exit 1, nothing changed. With any roles, --require-api-password sets
    (or replaces) the agent's API password and --no-api-password removes it."""
    roles, warning = _run(
        lambda db: accounts.set_agent_roles(
            db, vendor_id, username, tuple(role), api_password=require_api_password, no_api_password=no_api_password
        )
    )
    typer.echo(f"agent {username} of {vendor_id.upper()}: roles {', '.join(roles)}")
    if warning:
        typer.echo(warning, err=True)


@agent_app.command("disable")
def agent_disable(username: str, vendor_id: VendorOfAgent = None) -> None:
    """Deactivates an agent: its agent_id is refused from then on, and its API credentials (--pin) are
    disabled, their tokens and login-log OTPs ending at once."""
    _run(lambda db: accounts.set_agent_active(db, username, False, vendor_code=vendor_id))
    typer.echo(f"agent {username} disabled")


@agent_app.command("enable")
def agent_enable(username: str, vendor_id: VendorOfAgent = None) -> None:
    """Reactivates an agent (and its API credentials)."""
    _run(lambda db: accounts.set_agent_active(db, username, True, vendor_code=vendor_id))
    typer.echo(f"agent {username} enabled")


@ops_app.command("stuck")
def stuck(limit: Annotated[int, typer.Option(min=1, max=1000)] = 100) -> None:
    """Lists the lines of every vendor waiting for support (STUCK, or RECEIVED and never started), longest
    waiting first, with their last error."""

    async def work(db: Database) -> list[Line]:
        async with db.transaction(write=False) as session:
            return await waiting_lines(session, waiting(get_settings()), vendor_id=None, limit=limit)

    lines = _run(work)
    if not lines:
        typer.echo("no stuck lines")
    for line in lines:
        since = f"{line.status_since:%Y-%m-%d %H:%M:%S}"
        typer.echo(f"{line.enrollment_id}\t{line.parent_enrollment_id}\t{since}\t{shown_error(line)}")


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
    settings = get_settings()

    async def work(db: Database) -> tuple[list[str], int]:
        pacing = Pacing.of(settings)
        async with db.transaction() as session:  # claims the stuck lines it finds
            if enrollment_id is None:
                matching = waiting(settings, error_contains=error, stuck_minutes=older_than)
                found = await all_waiting(session, matching, vendor_id=None, pacing=pacing)
            else:
                found = await one_waiting(session, enrollment_id, vendor_id=None, pacing=pacing)
        if not found.lines:
            return [], 0
        retried = await resume(
            found,
            client=await connect(settings),
            task_queue=settings.temporal.task_queue,
            rpc_seconds=settings.temporal.rpc_seconds,
            transaction=db.transaction,
        )
        return retried, found.remaining

    try:
        retried, remaining = _run(work)
    except LineupError as refused:
        raise _fail("; ".join(refused.errors or [refused.msg])) from None
    if enrollment_id is not None and not retried:
        raise _fail(f"Enrollment {enrollment_id} has no workflow to retry")
    for line_id in retried:
        typer.echo(f"retried {line_id}")
    if every:
        more = f"; {remaining} more waiting, run it again" if remaining else ""
        typer.echo(f"{len(retried)} lines retried{more}")


@temporal_app.command("setup")
def setup() -> None:
    """Registers Lineup's search attributes in the namespace (idempotent; needed once per cluster)."""

    async def work() -> None:
        settings = get_settings()
        await register(await connect(settings), settings.temporal.namespace)

    asyncio.run(work())
    typer.echo("search attributes registered: " + ", ".join(key.name for key in ALL))


@webhook_app.command("add")
def add(
    vendor_id: Annotated[str, typer.Option("--vendor-id")],
    url: Annotated[str, typer.Option("--url")],
    events: Annotated[str | None, typer.Option("--events", help="TYPE,… (default: every type)")] = None,
) -> None:
    """Registers an endpoint; prints its id and its signing secret (shown this once)."""
    settings = get_settings()

    async def work(db: Database) -> Registered:
        async with db.transaction() as session:
            vendor = await _vendor_id(session, vendor_id)
            return await add_endpoint(session, cipher_for(settings), settings, vendor_id=vendor, url=url, events=events)

    try:
        registered = _run(work)
    except LineupError as refused:
        raise _fail("error: " + "; ".join(refused.errors or [refused.msg])) from None
    typer.echo(f"id: {registered.endpoint.public_id}")
    typer.echo(f"secret: {registered.secret}")
    typer.echo(f"events: {registered.endpoint.event_types}")
    typer.echo("The secret is shown only now: store it where the receiver verifies signatures.")


@webhook_app.command("list")
def list_endpoints(vendor_id: Annotated[str, typer.Option("--vendor-id")]) -> None:
    """The vendor's endpoints: id, state, URL, event types (and why a disabled one was disabled)."""

    async def work(db: Database) -> list[WebhookEndpoint]:
        async with db.transaction(write=False) as session:
            return await endpoints(session, await _vendor_id(session, vendor_id))

    found = _run(work)
    for e in found:
        state = "active" if e.active else "disabled"
        typer.echo("\t".join([e.public_id, state, e.url, e.event_types, e.disabled_reason or ""]).rstrip("\t"))
    if not found:
        typer.echo("no webhook endpoints")


@webhook_app.command("disable")
def disable(endpoint_id: Annotated[str, typer.Argument(help="The endpoint's id (whe_…)")]) -> None:
    """Switches an endpoint off: nothing more is delivered to it."""

    async def work(db: Database) -> None:
        async with db.transaction() as session:
            await disable_endpoint(session, endpoint_id, vendor_id=None, by="an operator (CLI)")

    _run(work)
    typer.echo(f"endpoint {endpoint_id} disabled")


def _run(work: Callable[[Database], Awaitable[T]]) -> T:
    """Runs `work` on the configured database, disposed after; a refusal (an unknown vendor, agent or endpoint,
    a bad role, …) is printed as `error: …` and exits 1."""

    async def opened() -> T:
        database = Database(get_settings())
        try:
            return await work(database)
        finally:
            await database.dispose()

    try:
        return asyncio.run(opened())
    except (accounts.AdminError, RecordNotFound) as refused:
        raise _fail(f"error: {refused}") from None


def _fail(message: str) -> typer.Exit:
    typer.echo(message, err=True)
    return typer.Exit(1)


async def _vendor_id(session: Session, code: str) -> int:
    found = (await session.exec(select(Vendor.id).where(Vendor.code == code.upper()))).first()
    if found is None:
        raise RecordNotFound(f"unknown vendor {code}")
    return found
