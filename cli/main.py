"""`lineup`: the admin CLI (database, vendors, agents, demo data) and the one-machine runner."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import typer

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
from cli.demo import seed_demo as seed
from cli.exits import run_and_leave
from cli.operations import ops_app, temporal_app
from cli.webhooks import webhook_app
from models.settings import get_settings
from models.tables.agents import ROLES
from persistence import migrate
from persistence.engine import Database

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
        db = Database.open(get_settings())
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
    migrate.upgrade(settings.db_url, revision)
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
