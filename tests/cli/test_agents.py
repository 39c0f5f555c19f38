"""`lineup agent create|list` (issue 34, item 5): creating an agent the vendor already has is refused, exit 1,
changing nothing and naming its roles, its state and `lineup agent set-roles` (it once said "already exists",
exited 0 and dropped --role and --password); `agent list` prints a vendor's agents, one a line, for scripts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from cli.accounts import AGENT_PASSWORD
from models.auth import Agent, ApiUser, Vendor
from models.crypto import verify_secret
from models.db import Database
from models.settings import Settings

runner = CliRunner()

# The demo vendor's agents as the seeded database holds them, in the list's order (by username; seeding made
# them in another).
DEMO_AGENTS = (
    "demo.agent\tagent,payments\tactive\n"
    "demo.inactive\tagent\tinactive\n"
    "demo.secure\tagent\tactive\n"
    "demo.support\tagent,support\tactive\n"
)


async def stored(sqlite_url: str, data_dir: Path, vendor: str, username: str) -> tuple[dict[str, Any], bool]:
    """The agent's row as stored (hashes included), and whether an API user has its name."""
    db = Database(Settings(data_dir=data_dir), sqlite_url)
    try:
        async with db.transaction(write=False) as session:
            query = select(Agent).join(Vendor).where(Vendor.code == vendor, Agent.username == username)
            agent = (await session.exec(query)).one()
            twin = select(ApiUser).where(ApiUser.vendor_id == agent.vendor_id, ApiUser.username == username)
            return agent.model_dump(), (await session.exec(twin)).first() is not None
    finally:
        await db.dispose()


@pytest.mark.parametrize(
    ("username", "described"),
    [("demo.agent", "roles: agent, payments; active"), ("demo.inactive", "roles: agent; inactive")],
)
async def test_agent_create_of_an_existing_agent_exits_1_and_changes_nothing(
    lineup, sqlite_url, data_dir, username, described
):
    before = await stored(sqlite_url, data_dir, "DEMO", username)
    again = await lineup(
        "agent", "create", "--vendor-id", "demo", "--username", username, "--password", "a-new-password",
        "--role", "admin", "--email", "new@demo.example", "--pin", "9999", "--require-api-password", "api-pass-2",
    )  # fmt: skip
    assert again.exit_code == 1
    assert again.stdout == ""
    assert again.stderr == (
        f"error: agent {username} of DEMO already exists ({described}); nothing changed — change its roles with: "
        f"lineup agent set-roles --vendor-id DEMO --username {username} --role …\n"
    )
    after = await stored(sqlite_url, data_dir, "DEMO", username)
    assert after == before  # password, roles, active, e-mail and API password as they were; no API user made
    assert after[1] is False
    assert verify_secret(after[0]["password_hash"], AGENT_PASSWORD)


async def test_agent_create_of_a_new_agent_exits_0_and_is_listed(lineup):
    created = await lineup(
        "agent", "create", "--vendor-id", "demo", "--username", "demo.new", "--password", "new-pass-1",
        "--role", "agent", "--role", "support", "--require-api-password", "api-pass-3",
    )  # fmt: skip
    assert (created.exit_code, created.stdout) == (0, "agent demo.new created\n")
    listed = await lineup("agent", "list", "--vendor-id", "DEMO")
    assert listed.exit_code == 0
    assert "demo.new\tagent,support\tactive\n" in listed.stdout


async def test_agent_list_prints_only_that_vendors_agents_by_username(lineup):
    # OTHER gets an agent of DEMO's agent's name (a username is its vendor's own): it must not show under DEMO.
    twin = await lineup(
        "agent", "create", "--vendor-id", "OTHER", "--username", "demo.agent", "--password", "p", "--role", "support",
        "--no-api-password",
    )  # fmt: skip
    assert twin.exit_code == 0, twin.output
    demo = await lineup("agent", "list", "--vendor-id", "demo")
    assert (demo.exit_code, demo.stdout, demo.stderr) == (0, DEMO_AGENTS, "")
    other = await lineup("agent", "list", "--vendor-id", "other")
    assert (other.exit_code, other.stdout) == (
        0,
        "demo.agent\tsupport\tactive\tno-api-password\nother.agent\tagent\tactive\n",
    )


async def test_agent_list_of_a_vendor_without_agents_prints_no_line(lineup):
    assert (await lineup("vendor", "create", "--vendor-id", "EMPTY")).exit_code == 0
    empty = await lineup("agent", "list", "--vendor-id", "empty")
    assert (empty.exit_code, empty.stdout, empty.stderr) == (0, "", "vendor EMPTY has no agents\n")


async def test_agent_list_of_an_unknown_vendor_exits_1(lineup):
    unknown = await lineup("agent", "list", "--vendor-id", "NOPE")
    assert (unknown.exit_code, unknown.stdout, unknown.stderr) == (1, "", "error: vendor NOPE does not exist\n")
