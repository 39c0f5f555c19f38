"""The demo data `make run` seeds (idempotently) and the README lists."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from cli.accounts import AgentSpec, create_agent, create_api_user, create_vendor
from models.db import transaction
from models.tables.catalog import Plan

AGENT_PASSWORD = "agent-pass-1"

VENDORS = {"DEMO": "Demo Wireless", "OTHER": "Other Wireless"}
API_USERS = (("DEMO", "demo.api", "demo-pass-1", "1234"), ("OTHER", "other.api", "other-pass-1", "4321"))
AGENTS = (
    AgentSpec("DEMO", "demo.agent", AGENT_PASSWORD, email="demo.agent@demo.example"),
    AgentSpec("DEMO", "demo.support", AGENT_PASSWORD, roles=("agent", "support"), email="demo.support@demo.example"),
    AgentSpec("DEMO", "demo.secure", AGENT_PASSWORD, api_password="secure-pass-1", email="demo.secure@demo.example"),
    AgentSpec("DEMO", "demo.inactive", AGENT_PASSWORD, active=False, email="demo.inactive@demo.example"),
    AgentSpec("OTHER", "other.agent", AGENT_PASSWORD, email="other.agent@other.example"),
)

PLANS = (
    Plan(plan_id=101, name="Basic Talk & Text 1GB", price_cents=1500, carrier="TMB", talk="Unlimited", text="Unlimited", data="1GB"),
    Plan(plan_id=102, name="Everyday 5GB", price_cents=2500, carrier="TMB", talk="Unlimited", text="Unlimited", data="5GB"),
    Plan(plan_id=103, name="Unlimited Plus", price_cents=4500, carrier="ATT", talk="Unlimited", text="Unlimited", data="Unlimited"),
    Plan(plan_id=104, name="Add-a-Line 10GB", price_cents=2000, carrier="VER", talk="Unlimited", text="Unlimited", data="10GB"),
)  # fmt: skip


async def seed_plans(sessions: async_sessionmaker[AsyncSession]) -> int:
    created = 0
    async with transaction(sessions) as session:
        for plan in PLANS:
            if await session.get(Plan, plan.plan_id) is None:
                session.add(Plan.model_validate(plan.model_dump()))
                created += 1
    return created


async def seed_demo(sessions: async_sessionmaker[AsyncSession]) -> int:
    """Creates whatever of the demo data is missing; returns how many records it created."""
    created = await seed_plans(sessions)
    for code, name in VENDORS.items():
        created += await create_vendor(sessions, code, name)
    for vendor, username, password, pin in API_USERS:
        created += await create_api_user(sessions, vendor, username, password, pin)
    for spec in AGENTS:
        created += await create_agent(sessions, spec)
    return created
