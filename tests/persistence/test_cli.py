"""The admin CLI against both engines: an agent it creates can authenticate and act."""

from __future__ import annotations

import asyncio
import secrets

from sqlmodel import col, select
from typer.testing import CliRunner

from cli.main import app as cli
from models.auth import Agent
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body

runner = CliRunner()


def lineup(monkeypatch, url: str, data_dir, *args: str):
    monkeypatch.setenv("LINEUP_DATABASE_URL", url)
    monkeypatch.setenv("LINEUP_DATA_DIR", str(data_dir))
    from models.settings import get_settings

    get_settings.cache_clear()
    try:
        return runner.invoke(cli, list(args))
    finally:
        get_settings.cache_clear()


async def test_cli_created_agent_can_authenticate_and_call(db_url, data_dir, monkeypatch):
    name = f"cli.{secrets.token_hex(3)}"
    vendor = f"V{secrets.token_hex(3).upper()}"
    steps = [
        ("vendor", "create", "--vendor-id", vendor, "--name", "CLI Wireless"),
        (
            "agent",
            "create",
            "--vendor-id",
            vendor,
            "--username",
            name,
            "--password",
            "pw-123456",
            "--pin",
            "2468",
            "--role",
            "agent",
            "--role",
            "support",
            "--role",
            "payments",  # decisions.md "Permissions": granted at provisioning
            "--require-api-password",  # support's: decisions.md "Who calls"
            "api-pass-9",
            "--email",
            f"{name}@example.com",
        ),
    ]
    for step in steps:
        result = await asyncio.to_thread(lineup, monkeypatch, db_url, data_dir, *step)
        assert result.exit_code == 0, result.output
    again = await asyncio.to_thread(lineup, monkeypatch, db_url, data_dir, *steps[1])
    assert again.exit_code == 1 and "already exists" in again.stderr  # refused: nothing changed (issue 34)

    async with ApiClient.running(make_settings(data_dir, db_url)) as api:
        login = await api.post(
            "/authenticate", {"vendor_id": vendor, "username": name, "password": "pw-123456", "pin": "2468"}
        )
        assert login.json()["msg_code"] == "RESTAPI000"
        async with api.db.transaction() as session:
            agent = (await session.exec(select(Agent).where(col(Agent.username) == name))).one()
        assert agent.role_set == {"agent", "support", "payments"}
        call = body("update_location_coordinate", agent_id=name, username=name, agent_password="api-pass-9")
        assert (await api.post("/agent", call, token=login.json()["token"])).json()["msg_code"] == "RESTAPI000"

        disabled = await asyncio.to_thread(lineup, monkeypatch, db_url, data_dir, "agent", "disable", name)
        assert disabled.exit_code == 0
        refused = (await api.post("/agent", call, token=await api.token(vendor, name))).json()
        assert refused["msg"] == "Invalid Agent Id"


async def test_cli_refuses_an_unknown_vendor_and_role(sqlite_url, data_dir, monkeypatch):
    unknown = await asyncio.to_thread(
        lineup,
        monkeypatch,
        sqlite_url,
        data_dir,
        "agent",
        "create",
        "--vendor-id",
        "NOPE",
        "--username",
        "x",
        "--password",
        "y",
    )
    assert unknown.exit_code == 1 and "vendor NOPE does not exist" in unknown.output
    role = await asyncio.to_thread(
        lineup,
        monkeypatch,
        sqlite_url,
        data_dir,
        "agent",
        "create",
        "--vendor-id",
        "DEMO",
        "--username",
        "x",
        "--password",
        "y",
        "--role",
        "king",
    )
    assert role.exit_code == 1 and "unknown role(s): king" in role.output


def test_seed_demo_is_idempotent(sqlite_url, data_dir, monkeypatch):
    result = lineup(monkeypatch, sqlite_url, data_dir, "seed-demo")
    assert result.exit_code == 0
    assert "(0 records created)" in result.output


async def test_seed_demo_gives_demo_agent_the_payments_role_once(db_url, data_dir, monkeypatch):
    """A database seeded before the payments role existed: seeding again gives demo.agent the role (keeping
    any other an operator granted), and a third seeding changes nothing."""
    from sqlalchemy import update

    from models.auth import Agent

    async with ApiClient.running(make_settings(data_dir, db_url)) as api:
        async with api.db.transaction() as session:
            await session.execute(update(Agent).where(col(Agent.username) == "demo.agent").values(roles="agent,admin"))
        seeded = await asyncio.to_thread(lineup, monkeypatch, db_url, data_dir, "seed-demo")
        assert seeded.exit_code == 0 and "(0 records created; roles given to demo.agent)" in seeded.output
        again = await asyncio.to_thread(lineup, monkeypatch, db_url, data_dir, "seed-demo")
        assert again.output.strip() == "demo data ready (0 records created)"
        async with api.db.transaction() as session:
            roles = (await session.exec(select(Agent.roles).where(Agent.username == "demo.agent"))).one()
        assert roles == "agent,admin,payments"


async def test_temporal_setup_registers_the_search_attributes(temporal_env, monkeypatch):
    from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest

    from workflows.enrollment import ALL

    monkeypatch.setenv("LINEUP_TEMPORAL_ADDRESS", temporal_env.client.service_client.config.target_host)
    from models.settings import get_settings

    get_settings.cache_clear()
    try:
        result = await asyncio.to_thread(runner.invoke, cli, ["temporal", "setup"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    listed = await temporal_env.client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace="default")
    )
    assert {key.name for key in ALL} <= set(listed.custom_attributes)
