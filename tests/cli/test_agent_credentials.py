"""`lineup agent create|set-roles|list` and `seed-demo` for who calls (issue 35, item 2; decisions.md "Who
calls"): giving `support` or `admin` needs `--require-api-password PASSWORD` or an explicit `--no-api-password`
(which warns on stderr); neither exits 1 and changes nothing. `agent list` marks a support or admin agent without
an API password with a fourth field; `--pin` makes the agent's own API credentials, bound to it."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select
from typer.testing import CliRunner

from cli.accounts import SUPPORT_API_PASSWORD
from cli.main import app as cli
from models.auth import Agent, ApiUser, Vendor
from models.crypto import verify_secret
from models.db import Database, upgrade_async
from models.settings import Settings

runner = CliRunner()
NEEDS = (
    "would have the {roles} role without an API password: give --require-api-password PASSWORD (it must then send "
    "it as agent_password on every API call), or --no-api-password to go without one; nothing changed"
)


VENDOR = "INSERT INTO vendor (id, code, name, active, created_at) VALUES (1, 'ACME', 'Acme', 1, '2026-11-27')"
AGENT = (
    "INSERT INTO agent (id, vendor_id, username, roles, active, password_hash, requires_api_password, created_at) "
    "VALUES (1, 1, 'jo', 'agent,support', 1, 'h', 0, '2026-11-27')"
)


def warning(username: str, roles: str) -> str:
    return (
        f"warning: agent {username} of DEMO has the {roles} role and no API password: whoever holds an API "
        f"credential of DEMO can act as it (give it one with lineup agent set-roles --vendor-id DEMO --username "
        f"{username} --role … --require-api-password …)\n"
    )


@pytest.fixture
async def db(sqlite_url: str, data_dir: Path) -> Any:
    database = Database(Settings(data_dir=data_dir), sqlite_url)
    try:
        yield database
    finally:
        await database.dispose()


async def agent_row(db: Database, username: str) -> Agent | None:
    async with db.transaction(write=False) as session:
        query = select(Agent).join(Vendor).where(Vendor.code == "DEMO", Agent.username == username)
        return (await session.exec(query)).first()


def create(username: str, *more: str) -> tuple[str, ...]:
    return ("agent", "create", "--vendor-id", "DEMO", "--username", username, "--password", "pw-123456", *more)


def set_roles(username: str, *more: str) -> tuple[str, ...]:
    return ("agent", "set-roles", "--vendor-id", "DEMO", "--username", username, *more)


@pytest.mark.parametrize("role", ["support", "admin"])
async def test_agent_create_of_a_support_or_admin_agent_without_a_choice_exits_1_and_creates_nothing(lineup, db, role):
    refused = await lineup(*create("new.one", "--role", "agent", "--role", role, "--pin", "2468"))
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert refused.stderr == f"error: agent new.one of DEMO {NEEDS.format(roles=role)}\n"
    assert await agent_row(db, "new.one") is None
    async with db.transaction(write=False) as session:
        assert (await session.exec(select(ApiUser).where(col(ApiUser.username) == "new.one"))).first() is None


async def test_agent_create_with_an_api_password_requires_it_and_is_not_marked(lineup, db):
    created = await lineup(*create("new.two", "--role", "support", "--require-api-password", "api-pass-5"))
    assert (created.exit_code, created.stdout, created.stderr) == (0, "agent new.two created\n", "")
    agent = await agent_row(db, "new.two")
    assert agent is not None and agent.requires_api_password
    assert verify_secret(agent.api_password_hash, "api-pass-5")
    listed = await lineup("agent", "list", "--vendor-id", "DEMO")
    assert "new.two\tsupport\tactive\n" in listed.stdout


async def test_agent_create_with_no_api_password_warns_and_is_marked_in_the_list(lineup, db):
    created = await lineup(*create("new.three", "--role", "agent", "--role", "admin", "--no-api-password"))
    assert (created.exit_code, created.stdout) == (0, "agent new.three created\n")
    assert created.stderr == warning("new.three", "admin")
    agent = await agent_row(db, "new.three")
    assert agent is not None and not agent.requires_api_password and agent.api_password_hash is None
    listed = await lineup("agent", "list", "--vendor-id", "DEMO")
    assert "new.three\tadmin,agent\tactive\tno-api-password\n" in listed.stdout


async def test_agent_create_refuses_both_choices(lineup, db):
    both = "--require-api-password", "p", "--no-api-password"
    refused = await lineup(*create("new.four", "--role", "support", *both))
    assert (refused.exit_code, refused.stderr) == (
        1,
        "error: give --require-api-password or --no-api-password, not both; nothing changed\n",
    )
    assert await agent_row(db, "new.four") is None


async def test_agent_create_with_a_pin_binds_its_own_api_credentials_and_refuses_a_name_taken(lineup, db):
    assert (await lineup(*create("new.five", "--pin", "2468"))).exit_code == 0
    agent = await agent_row(db, "new.five")
    assert agent is not None
    async with db.transaction(write=False) as session:
        twin = (await session.exec(select(ApiUser).where(col(ApiUser.username) == "new.five"))).one()
    assert twin.agent_id == agent.id
    # The vendor's own API user has the name: the PIN cannot make the agent's own, so nothing is made.
    taken = await lineup(*create("demo.api", "--pin", "2468"))
    assert (taken.exit_code, taken.stderr) == (
        1,
        "error: api user demo.api of DEMO already exists, so --pin cannot make the agent's own; nothing changed\n",
    )
    assert await agent_row(db, "demo.api") is None


async def test_agent_set_roles_giving_support_needs_a_choice_and_changes_nothing_without(lineup, db):
    refused = await lineup(*set_roles("demo.agent", "--role", "agent", "--role", "support"))
    assert (refused.exit_code, refused.stderr) == (
        1,
        f"error: agent demo.agent of DEMO {NEEDS.format(roles='support')}\n",
    )
    before = await agent_row(db, "demo.agent")
    assert before is not None and before.roles == "agent,payments" and not before.requires_api_password

    given = await lineup(*set_roles("demo.agent", "--role", "support", "--require-api-password", "api-pass-6"))
    assert (given.exit_code, given.stdout, given.stderr) == (0, "agent demo.agent of DEMO: roles support\n", "")
    after = await agent_row(db, "demo.agent")
    assert after is not None and after.requires_api_password and verify_secret(after.api_password_hash, "api-pass-6")


async def test_agent_set_roles_of_an_agent_with_an_api_password_needs_no_choice(lineup, db):
    kept = await lineup(*set_roles("demo.support", "--role", "support", "--role", "admin"))
    assert (kept.exit_code, kept.stderr) == (0, "")
    agent = await agent_row(db, "demo.support")
    assert agent is not None and agent.roles == "support,admin"
    assert agent.requires_api_password and verify_secret(agent.api_password_hash, SUPPORT_API_PASSWORD)


async def test_agent_set_roles_with_no_api_password_removes_it_warns_and_marks(lineup, db):
    waived = await lineup(*set_roles("demo.support", "--role", "agent", "--role", "support", "--no-api-password"))
    assert (waived.exit_code, waived.stdout) == (0, "agent demo.support of DEMO: roles agent, support\n")
    assert waived.stderr == warning("demo.support", "support")
    agent = await agent_row(db, "demo.support")
    assert agent is not None and not agent.requires_api_password and agent.api_password_hash is None
    listed = await lineup("agent", "list", "--vendor-id", "DEMO")
    assert "demo.support\tagent,support\tactive\tno-api-password\n" in listed.stdout


async def test_agent_list_marks_only_support_and_admin_agents_without_an_api_password(lineup, db):
    async with db.transaction() as session:  # as a database from before issue 35 has them
        no_password = {"requires_api_password": False, "api_password_hash": None}
        await session.execute(update(Agent).where(col(Agent.username) == "demo.support").values(**no_password))
    listed = await lineup("agent", "list", "--vendor-id", "DEMO")
    assert (listed.exit_code, listed.stdout) == (
        0,
        "demo.agent\tagent,payments\tactive\n"  # payments trusts the vendor's credential: no mark
        "demo.inactive\tagent\tinactive\n"
        "demo.secure\tagent\tactive\n"
        "demo.support\tagent,support\tactive\tno-api-password\n",
    )


async def test_seed_demo_gives_demo_support_its_api_password_once(lineup, db):
    async with db.transaction() as session:  # seeded before demo.support had one
        no_password = {"requires_api_password": False, "api_password_hash": None}
        await session.execute(update(Agent).where(col(Agent.username) == "demo.support").values(**no_password))
    seeded = await lineup("seed-demo")
    assert seeded.stdout == "demo data ready (0 records created; API password given to demo.support)\n"
    agent = await agent_row(db, "demo.support")
    assert agent is not None and agent.requires_api_password
    assert verify_secret(agent.api_password_hash, SUPPORT_API_PASSWORD)
    assert not verify_secret(agent.password_hash, SUPPORT_API_PASSWORD)  # the console's stays agent-pass-1
    assert (await lineup("seed-demo")).stdout == "demo data ready (0 records created)\n"


async def test_db_upgrade_names_support_agents_without_an_api_password_on_stderr(tmp_path, monkeypatch):
    path = tmp_path / "before.db"
    await upgrade_async(f"sqlite+aiosqlite:///{path}", "0022")
    with contextlib.closing(sqlite3.connect(path)) as before, before:  # a support agent as 0022 has it
        before.execute(VENDOR)
        before.execute(AGENT)
    monkeypatch.setenv("LINEUP_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    monkeypatch.setenv("LINEUP_DATA_DIR", str(tmp_path))
    from models.settings import get_settings

    get_settings.cache_clear()
    try:
        upgraded = await asyncio.to_thread(runner.invoke, cli, ["db", "upgrade"])
    finally:
        get_settings.cache_clear()
    assert (upgraded.exit_code, upgraded.stdout) == (0, "database at head\n")
    assert upgraded.stderr == (
        "warning: agent jo of vendor ACME has the support role without an API password: give it one with `lineup "
        "agent set-roles --vendor-id ACME --username jo --role … --require-api-password …`\n"
    )
