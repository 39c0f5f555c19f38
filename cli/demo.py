"""The demo data `make run` seeds (idempotently) and the README lists."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from cli.accounts import AgentSpec, create_agent, create_api_user, create_vendor

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


async def seed_demo(sessions: async_sessionmaker[AsyncSession]) -> int:
    """Creates whatever of the demo data is missing; returns how many records it created."""
    created = 0
    for code, name in VENDORS.items():
        created += await create_vendor(sessions, code, name)
    for vendor, username, password, pin in API_USERS:
        created += await create_api_user(sessions, vendor, username, password, pin)
    for spec in AGENTS:
        created += await create_agent(sessions, spec)
    return created
