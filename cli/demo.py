"""The demo data `make run` seeds (idempotently) and the README lists."""

from __future__ import annotations

from cli.accounts import AgentSpec, create_agent, create_api_user, create_vendor, grant_roles
from models.tables.enrollment import Plan
from persistence.engine import Database

AGENT_PASSWORD = "agent-pass-1"

VENDORS = {"DEMO": "Demo Wireless", "OTHER": "Other Wireless"}
API_USERS = (("DEMO", "demo.api", "demo-pass-1", "1234"), ("OTHER", "other.api", "other-pass-1", "4321"))
AGENTS = (
    # A storefront's agent: it also records the payments the storefront's own processor took (decisions.md).
    AgentSpec("DEMO", "demo.agent", AGENT_PASSWORD, roles=("agent", "payments"), email="demo.agent@demo.example"),
    AgentSpec("DEMO", "demo.support", AGENT_PASSWORD, roles=("agent", "support"), email="demo.support@demo.example"),
    AgentSpec("DEMO", "demo.secure", AGENT_PASSWORD, api_password="secure-pass-1", email="demo.secure@demo.example"),
    AgentSpec("DEMO", "demo.inactive", AGENT_PASSWORD, active=False, email="demo.inactive@demo.example"),
    AgentSpec("OTHER", "other.agent", AGENT_PASSWORD, email="other.agent@other.example"),
)

GB = 1024  # MB


def _plan(plan_id: int, code: str, name: str, price_cents: int, carrier: str, data_mb: int | None) -> Plan:
    """Every demo plan has unlimited talk and text; they differ by data (None: unlimited) and carrier."""
    data = "Unlimited" if data_mb is None else f"{data_mb // GB} GB"
    return Plan(
        plan_id=plan_id,
        plan_code=code,
        name=name,
        price_cents=price_cents,
        carrier=carrier,
        description=f"Unlimited talk & text, {data} high-speed data",
        data_mb=data_mb,
    )


PLANS = (
    _plan(101, "TMB-BASIC-1G", "Basic Talk & Text 1GB", 1500, "TMB", 1 * GB),
    _plan(102, "TMB-EVERYDAY-5G", "Everyday 5GB", 2500, "TMB", 5 * GB),
    _plan(103, "ATT-UNL-PLUS", "Unlimited Plus", 4500, "ATT", None),
    _plan(104, "VER-ADDLINE-10G", "Add-a-Line 10GB", 2000, "VER", 10 * GB),
)


async def seed_plans(db: Database) -> int:
    created = 0
    async with db.transaction() as session:
        for plan in PLANS:
            if await session.get(Plan, plan.plan_id) is None:
                session.add(Plan.model_validate(plan.model_dump()))
                created += 1
    return created


async def seed_demo(db: Database) -> tuple[int, list[str]]:
    """Creates whatever of the demo data is missing, and gives the demo agents a role they lack (a database
    seeded before the role existed); returns how many records it created and the agents it gave roles."""
    created = await seed_plans(db)
    for code, name in VENDORS.items():
        created += await create_vendor(db, code, name)
    for vendor, username, password, pin in API_USERS:
        created += await create_api_user(db, vendor, username, password, pin)
    granted = []
    for spec in AGENTS:
        if await create_agent(db, spec):
            created += 1
        elif await grant_roles(db, spec):
            granted.append(spec.username)
    return created, granted
