"""Agents per vendor (issue 26; decisions.md "Agents per vendor"): two vendors each have an agent `ewebsiteapi`
(every storefront of the original uses that agent id), and each acts on its own vendor's data with its own
roles: the API, `/ops`, the event log's actors, the console's sign-in and the CLI resolve it within a vendor."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from cli.accounts import AgentSpec, create_agent
from cli.main import app as cli
from models.auth import Agent, Vendor
from models.events import LineEvent
from tests.support.builders import body, create, line
from tests.support.console import PASSWORD, csrf_of

STOREFRONT = "ewebsiteapi"
DEMO, OTHER = {"agent_id": STOREFRONT}, {"agent_id": STOREFRONT}
NO_CARD = {
    "card_number": None, "exp_month": None, "exp_year": None, "cvv": None, "name_on_card": None,
    "address1": None, "city": None, "state": None, "zip": None, "save_card": None,
}  # fmt: skip


@pytest.fixture(scope="module")
async def storefronts(shared_stack: Any) -> Any:
    """DEMO's ewebsiteapi records payments and uses /ops; OTHER's is a plain agent. The CLI made the second one
    (before issue 26 it answered "already exists for another vendor")."""
    assert await create_agent(
        shared_stack.db,
        AgentSpec("DEMO", STOREFRONT, PASSWORD, roles=("agent", "payments", "support"), no_api_password=True),
    )
    settings = shared_stack.app.state.resources.settings
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LINEUP_DATABASE_URL", settings.db_url)
        patch.setenv("LINEUP_DATA_DIR", str(settings.data_dir))
        created = await asyncio.to_thread(
            lineup, "agent", "create", "--vendor-id", "OTHER", "--username", STOREFRONT, "--password", PASSWORD
        )
    assert created.exit_code == 0 and f"agent {STOREFRONT} created" in created.output, created.output
    return shared_stack


def lineup(*args: str) -> Any:
    from models.settings import get_settings

    get_settings.cache_clear()
    try:
        return CliRunner().invoke(cli, list(args))
    finally:
        get_settings.cache_clear()


async def enrollment_of(stack: Any, vendor: str) -> str:
    issued = await stack.call("/enrollment", body("check_service_availability", **DEMO), vendor=vendor)
    assert issued["msg_code"] == "RESTAPI000", issued
    return str(issued["data"]["enrollment_id"])


async def test_each_vendors_ewebsiteapi_acts_on_its_own_vendors_data(storefronts):
    stack = storefronts
    ours, theirs = await enrollment_of(stack, "DEMO"), await enrollment_of(stack, "OTHER")
    for vendor, eid in (("DEMO", ours), ("OTHER", theirs)):
        waiting = line(eid, activation_later="Y", password=None)
        created = await stack.call("/customer", create(eid, waiting, **DEMO), vendor=vendor)
        assert created["msg_code"] == "RESTAPI000", created
    # Neither sees the other's line.
    for vendor, eid in (("DEMO", theirs), ("OTHER", ours)):
        found = await stack.call("/customer", body("customer_info", enrollment_id=eid, **DEMO), vendor=vendor)
        assert (found["msg_code"], found["errors"]) == ("RESTAPI110", ["No Record Found"]), vendor
    # The event log names each vendor's own agent on its own line.
    async with stack.db.transaction() as session:
        rows = (
            await session.exec(
                select(LineEvent.enrollment_id, Vendor.code, LineEvent.actor)
                .join(Vendor, col(Vendor.id) == col(LineEvent.vendor_id))
                .where(LineEvent.type == "line.received")
                .where(col(LineEvent.enrollment_id).in_([ours, theirs]))
            )
        ).all()
    assert sorted(rows) == sorted([(ours, "DEMO", "agent:ewebsiteapi"), (theirs, "OTHER", "agent:ewebsiteapi")])


async def test_each_ewebsiteapi_has_its_own_roles(storefronts):
    stack = storefronts
    cash = {"payment_method": "CASH", **NO_CARD, **DEMO}
    paid = await stack.call("/payment", body("make_payment", enrollment_id=await enrollment_of(stack, "DEMO"), **cash))
    assert paid["msg_code"] == "RESTAPI000", paid
    theirs = await enrollment_of(stack, "OTHER")
    refused = await stack.call("/payment", body("make_payment", enrollment_id=theirs, **cash), vendor="OTHER")
    assert (refused["msg_code"], refused["errors"]) == (
        "RESTAPI109",
        ["Recording a CASH or OTHER_PAYMENT_OPTION payment needs the payments role"],
    )
    assert (await stack.call("/ops", body("list_stuck_enrollments", **DEMO)))["msg_code"] == "RESTAPI000"
    ops = await stack.call("/ops", body("list_stuck_enrollments", **OTHER), vendor="OTHER")
    assert (ops["msg_code"], ops["errors"]) == ("RESTAPI109", ["This operation needs the support role"])


async def test_an_agent_id_only_another_vendor_has_is_an_invalid_agent_id(storefronts):
    refused = await storefronts.call(
        "/agent", body("update_location_coordinate", agent_id="other.agent", username="other.agent")
    )
    assert (refused["msg_code"], refused["msg"], refused["errors"]) == (
        "RESTAPI104",
        "Invalid Agent Id",
        ["Invalid Agent Id"],
    )


async def console_sign_in(http: Any, **form: str) -> Any:
    page = await http.get("/console/login")
    return await http.post("/console/login", data={"csrf": csrf_of(page.text), "password": PASSWORD, **form})


async def test_the_console_signs_in_by_username_and_asks_the_vendor_only_when_several_have_it(storefronts):
    stack, http = storefronts, storefronts.http
    # Only DEMO's ewebsiteapi may use the console: its name alone picks it.
    alone = await console_sign_in(http, username=STOREFRONT)
    assert alone.status_code == 303, alone.text
    assert f"{STOREFRONT} · DEMO" in (await http.get("/console")).text
    http.cookies.clear()
    other_support = f"ewebsiteapi{secrets.token_hex(2)}"
    for vendor in ("DEMO", "OTHER"):
        spec = AgentSpec(vendor, other_support, PASSWORD, roles=("agent", "support"), no_api_password=True)
        assert await create_agent(stack.db, spec)
    asked = await console_sign_in(http, username=other_support)
    assert asked.status_code == 401
    assert "Agents of several vendors have this username: enter your vendor id as well" in asked.text
    http.cookies.clear()
    picked = await console_sign_in(http, username=other_support, vendor_id="other")
    assert picked.status_code == 303, picked.text
    assert f"{other_support} · OTHER" in (await http.get("/console")).text
    http.cookies.clear()


async def test_the_cli_asks_which_vendors_agent_when_several_have_the_name(storefronts, monkeypatch):
    settings = storefronts.app.state.resources.settings
    monkeypatch.setenv("LINEUP_DATABASE_URL", settings.db_url)
    monkeypatch.setenv("LINEUP_DATA_DIR", str(settings.data_dir))
    both = await asyncio.to_thread(lineup, "agent", "disable", STOREFRONT)
    assert both.exit_code == 1
    assert f"agent {STOREFRONT} exists for several vendors (DEMO, OTHER); give --vendor-id" in both.output
    one = await asyncio.to_thread(lineup, "agent", "disable", STOREFRONT, "--vendor-id", "OTHER")
    assert one.exit_code == 0, one.output
    async with storefronts.db.transaction() as session:
        states = (
            await session.exec(
                select(Vendor.code, Agent.active)
                .join(Vendor, col(Vendor.id) == col(Agent.vendor_id))
                .where(Agent.username == STOREFRONT)
            )
        ).all()
    assert sorted(states) == [("DEMO", True), ("OTHER", False)]
    refused = await storefronts.call(
        "/agent", body("update_location_coordinate", username=STOREFRONT, **OTHER), vendor="OTHER"
    )
    assert refused["msg"] == "Invalid Agent Id"
    accepted = await storefronts.call("/agent", body("update_location_coordinate", username=STOREFRONT, **DEMO))
    assert accepted["msg_code"] == "RESTAPI000", accepted
