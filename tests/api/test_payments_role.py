"""The `payments` role (issue 26; decisions.md "Permissions"): a storefront's agent holding only `payments`
records the payment its processor took and reaches nothing of support's (`/ops`, the console); a missing role's
refusal names the role; `lineup agent set-roles` replaces an agent's roles and refuses a role that does not
exist, changing nothing."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from sqlmodel import select
from typer.testing import CliRunner

from cli.accounts import AgentSpec, create_agent
from cli.main import app as cli
from models.auth import Agent
from tests.support.builders import body
from tests.support.console import PASSWORD, sign_in

NO_CARD = {
    "card_number": None, "exp_month": None, "exp_year": None, "cvv": None, "name_on_card": None,
    "address1": None, "city": None, "state": None, "zip": None, "save_card": None,
}  # fmt: skip


def processor_payment(enrollment_id: str, agent: str) -> dict[str, Any]:
    """What a storefront sends once its own processor (here Stripe's PaymentMethod) took the money."""
    return body(
        "make_payment",
        enrollment_id=enrollment_id,
        agent_id=agent,
        payment_method="OTHER_PAYMENT_OPTION",
        payment_method_option="STRIPE",
        transaction_id=f"pm_{secrets.token_hex(12)}",
        **NO_CARD,
    )


async def storefront_agent(stack: Any, *roles: str) -> str:
    username = f"store.{secrets.token_hex(3)}"
    # No API password: a storefront's `payments` trusts the vendor's credential (support's is this test's choice).
    assert await create_agent(stack.db, AgentSpec("DEMO", username, PASSWORD, roles=roles, no_api_password=True))
    return username


async def test_a_storefront_agent_with_only_payments_records_its_processors_payment(shared_stack):
    agent = await storefront_agent(shared_stack, "payments")
    paid = await shared_stack.call("/payment", processor_payment(await shared_stack.new_enrollment_id(), agent))
    assert (paid["msg_code"], paid["data"]["settlement"]) == ("RESTAPI000", "RECORDED"), paid
    assert paid["data"]["transaction_no"].startswith("pm_")
    refused = await shared_stack.call("/ops", body("list_stuck_enrollments", agent_id=agent))
    assert (refused["msg_code"], refused["msg"], refused["errors"]) == (
        "RESTAPI109",
        "Unauthorized Access",
        ["This operation needs the support role"],
    )
    console = await sign_in(shared_stack.http, agent)
    assert console.status_code == 401 and "Invalid username or password" in console.text


async def test_an_agent_without_payments_is_told_the_role(shared_stack):
    agent = await storefront_agent(shared_stack, "agent", "support")
    refused = await shared_stack.call("/payment", processor_payment(await shared_stack.new_enrollment_id(), agent))
    assert (refused["msg_code"], refused["msg"], refused["errors"]) == (
        "RESTAPI109",
        "Unauthorized Access",
        ["Recording a CASH or OTHER_PAYMENT_OPTION payment needs the payments role"],
    )


def lineup(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


async def roles_of(stack: Any, username: str) -> str:
    async with stack.db.transaction() as session:
        roles: str = (await session.exec(select(Agent.roles).where(Agent.username == username))).one()
    return roles


async def test_agent_set_roles_replaces_the_roles_and_refuses_an_unknown_one(shared_stack, monkeypatch):
    settings = shared_stack.app.state.resources.settings
    monkeypatch.setenv("LINEUP_DATABASE_URL", settings.db_url)
    monkeypatch.setenv("LINEUP_DATA_DIR", str(settings.data_dir))
    from models.settings import get_settings

    get_settings.cache_clear()
    agent = await storefront_agent(shared_stack, "agent")
    enrollment_id = await shared_stack.new_enrollment_id()
    assert (await shared_stack.call("/payment", processor_payment(enrollment_id, agent)))["msg_code"] == "RESTAPI109"

    granted = await asyncio.to_thread(
        lineup,
        "agent",
        "set-roles",
        "--vendor-id",
        "demo",
        "--username",
        agent,
        "--role",
        "agent",
        "--role",
        "payments",
    )
    assert granted.exit_code == 0 and f"agent {agent} of DEMO: roles agent, payments" in granted.output
    assert (await shared_stack.call("/payment", processor_payment(enrollment_id, agent)))["msg_code"] == "RESTAPI000"

    unknown = await asyncio.to_thread(
        lineup, "agent", "set-roles", "--vendor-id", "DEMO", "--username", agent, "--role", "payments", "--role", "boss"
    )
    assert unknown.exit_code == 1
    assert "unknown role(s): boss; roles are agent, payments, support, admin" in unknown.output
    assert await roles_of(shared_stack, agent) == "agent,payments"  # nothing changed

    other = await asyncio.to_thread(
        lineup, "agent", "set-roles", "--vendor-id", "OTHER", "--username", agent, "--role", "payments"
    )
    assert other.exit_code == 1 and f"agent {agent} of vendor OTHER does not exist" in other.output
    get_settings.cache_clear()
