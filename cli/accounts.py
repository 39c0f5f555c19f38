"""Vendors, API users and agents as the admin CLI creates and changes them, and the demo data `make run` seeds
(idempotently) and the README lists."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import col, select

from models import auth
from models.auth import PRIVILEGED, ROLES, Agent, ApiUser, Vendor, close_login_entries, role_set
from models.crypto import hash_secret_async, login_secret
from models.db import Database, Session
from models.enrollment.lines import Plan


class AdminError(Exception):
    """A refusal the CLI prints as it is (unknown vendor, duplicate username, …)."""


@dataclass(frozen=True)
class AgentSummary:
    """What `lineup agent list` shows of an agent: never its password hashes. `unguarded`: it holds `support` or
    `admin` and has no API password, so any holder of its vendor's API credentials acts as it."""

    username: str
    roles: tuple[str, ...]
    active: bool
    unguarded: bool = False

    @classmethod
    def of(cls, username: str, roles: str, active: bool, requires_api_password: bool) -> AgentSummary:
        """From the agent's columns; its roles in alphabetical order, as scripts compare them."""
        held = role_set(roles)
        return cls(username, tuple(sorted(held)), active, bool(held & PRIVILEGED) and not requires_api_password)


class AgentExists(AdminError):
    """`agent create` of an agent the vendor has: nothing is changed, and the message says how it stands and how
    to change its roles (a second create once dropped --role and --password silently, and exited 0)."""

    def __init__(self, vendor_code: str, agent: AgentSummary) -> None:
        state = "active" if agent.active else "inactive"
        command = f"lineup agent set-roles --vendor-id {vendor_code} --username {shlex.quote(agent.username)} --role …"
        super().__init__(
            f"agent {agent.username} of {vendor_code} already exists (roles: {', '.join(agent.roles)}; {state}); "
            f"nothing changed — change its roles with: {command}"
        )


@dataclass(frozen=True)
class AgentSpec:
    """An agent to create. With `support` or `admin` among its roles it needs `api_password`, or `no_api_password`
    saying that it goes without one (`lineup agent create --no-api-password`, which warns)."""

    vendor_code: str
    username: str
    password: str
    pin: str | None = None
    roles: tuple[str, ...] = ("agent",)
    email: str | None = None
    api_password: str | None = None
    active: bool = True
    no_api_password: bool = False


# The demo data, as the README lists it.
AGENT_PASSWORD = "agent-pass-1"
SUPPORT_API_PASSWORD = "support-pass-1"  # demo.support's agent_password (its console password is AGENT_PASSWORD)
VENDORS = {"DEMO": "Demo Wireless", "OTHER": "Other Wireless"}
API_USERS = (("DEMO", "demo.api", "demo-pass-1", "1234"), ("OTHER", "other.api", "other-pass-1", "4321"))
AGENTS = (
    # A storefront's agent: it also records the payments the storefront's own processor took (decisions.md).
    AgentSpec("DEMO", "demo.agent", AGENT_PASSWORD, roles=("agent", "payments"), email="demo.agent@demo.example"),
    AgentSpec(
        "DEMO",
        "demo.support",
        AGENT_PASSWORD,
        roles=("agent", "support"),
        email="demo.support@demo.example",
        api_password=SUPPORT_API_PASSWORD,
    ),
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


async def create_vendor(db: Database, code: str, name: str) -> bool:
    """Creates the vendor; False when it already exists (creation is idempotent)."""
    async with db.transaction() as session:
        if (await session.exec(select(Vendor).where(Vendor.code == code.upper()))).first():
            return False
        session.add(Vendor(code=code.upper(), name=name))
    return True


async def set_vendor_payment_rule(db: Database, code: str, required: bool) -> None:
    """With `required`, the vendor's lines activate only once a settled payment covers their plan."""
    async with db.transaction() as session:
        vendor = await _vendor(session, code)
        vendor.require_payment = required
        session.add(vendor)


async def create_api_user(db: Database, vendor_code: str, username: str, password: str, pin: str) -> bool:
    """Creates the vendor's API user; False when the vendor has one of that name."""
    async with db.transaction() as session:
        vendor = await _vendor(session, vendor_code)
        if await _has_api_user(session, vendor, username):
            return False
        assert vendor.id is not None
        session.add(await _api_user(vendor.id, username, password, pin))
    return True


async def set_api_user_active(db: Database, vendor_code: str, username: str, active: bool) -> None:
    """Disabling an API user refuses its /authenticate and ends its sessions at once; enabling restores it."""
    async with db.transaction() as session:
        vendor = await _vendor(session, vendor_code)
        query = select(ApiUser.id).where(ApiUser.vendor_id == vendor.id, ApiUser.username == username)
        user_id = (await session.exec(query)).first()
        if user_id is None:
            raise AdminError(f"api user {username} of vendor {vendor.code} does not exist")
        await _set_api_user_active(session, user_id, active)


async def create_agent(db: Database, spec: AgentSpec) -> bool:
    """Creates the agent if the vendor lacks it; False, changing nothing, if it has it (seeding's "create what is
    missing"; `lineup agent create` refuses instead, through add_agent)."""
    try:
        await add_agent(db, spec)
    except AgentExists:
        return False
    return True


async def add_agent(db: Database, spec: AgentSpec) -> str | None:
    """Creates the agent, and with a PIN its own API credentials under the same name, bound to it (their tokens
    act as this agent only); AgentExists, changing nothing, if the vendor has it. A username is the vendor's own:
    another vendor may have an agent of the same name (decisions.md). Returns the warning to print when a support
    or admin agent goes without an API password (`no_api_password`)."""
    roles = _known_roles(spec.roles)
    async with db.transaction() as session:
        vendor = await _vendor(session, spec.vendor_code)
        assert vendor.id is not None
        mine = select(Agent).where(Agent.vendor_id == vendor.id, Agent.username == spec.username)
        if (existing := (await session.exec(mine)).first()) is not None:
            summary = AgentSummary.of(
                existing.username, existing.roles, existing.active, existing.requires_api_password
            )
            raise AgentExists(vendor.code, summary)
        warning = _api_password_rule(vendor.code, spec.username, spec.roles, spec.api_password, spec.no_api_password)
        if spec.pin is not None and await _has_api_user(session, vendor, spec.username):
            raise AdminError(
                f"api user {spec.username} of {vendor.code} already exists, so --pin cannot make the agent's own; "
                "nothing changed"
            )
        agent = Agent(
            vendor_id=vendor.id,
            username=spec.username,
            email=spec.email,
            roles=roles,
            active=spec.active,
            password_hash=await hash_secret_async(spec.password),
            requires_api_password=spec.api_password is not None,
            api_password_hash=await hash_secret_async(spec.api_password) if spec.api_password else None,
        )
        session.add(agent)
        if spec.pin is not None:
            await session.flush()  # the agent's id, which its API credentials are bound to
            session.add(await _api_user(vendor.id, spec.username, spec.password, spec.pin, agent_id=agent.id))
    return warning


async def agents_of(db: Database, vendor_code: str) -> list[AgentSummary]:
    """The vendor's agents (AdminError for an unknown vendor), by username."""
    async with db.transaction(write=False) as session:
        vendor = await _vendor(session, vendor_code)
        columns = select(Agent.username, Agent.roles, Agent.active, Agent.requires_api_password)
        rows = (await session.exec(columns.where(Agent.vendor_id == vendor.id))).all()
    # Sorted here, not in SQL: PostgreSQL's collation may ignore the dots SQLite sorts by, and scripts read the
    # list, so both databases must give one order.
    return sorted((AgentSummary.of(*row) for row in rows), key=lambda agent: agent.username)


async def set_agent_roles(
    db: Database,
    vendor_code: str,
    username: str,
    roles: tuple[str, ...],
    *,
    api_password: str | None = None,
    no_api_password: bool = False,
) -> tuple[tuple[str, ...], str | None]:
    """Replaces the agent's roles (checked first: an unknown one changes nothing); with `api_password` the agent
    needs it on every API call from then on, with `no_api_password` it has none. Roles with `support` or `admin`
    need one of them unless the agent has an API password already. Returns the roles it now has, and the warning
    to print when a support or admin agent goes without an API password."""
    value = _known_roles(roles)
    hashed = await hash_secret_async(api_password) if api_password is not None else None
    async with db.transaction() as session:
        agent = await _agent(session, username, vendor_code)
        vendor = await session.get(Vendor, agent.vendor_id)
        assert vendor is not None
        has_one = agent.requires_api_password
        warning = _api_password_rule(vendor.code, username, roles, api_password, no_api_password, has_one=has_one)
        agent.roles = value
        if hashed is not None or no_api_password:
            agent.requires_api_password, agent.api_password_hash = hashed is not None, hashed
        session.add(agent)
    return tuple(value.split(",")), warning


async def set_agent_active(db: Database, username: str, active: bool, *, vendor_code: str | None = None) -> None:
    """Disabling an agent refuses its agent_id from then on and disables its API credentials (the API user of the
    same name and vendor that `agent create --pin` made), ending their sessions at once; enabling restores both."""
    async with db.transaction() as session:
        agent = await _agent(session, username, vendor_code)
        agent.active = active
        session.add(agent)
        twin = select(ApiUser.id).where(ApiUser.vendor_id == agent.vendor_id, ApiUser.username == agent.username)
        if (user_id := (await session.exec(twin)).first()) is not None:
            await _set_api_user_active(session, user_id, active)


async def seed_demo(db: Database) -> tuple[int, list[str], list[str]]:
    """Creates whatever of the demo data is missing, and gives the demo agents a role or an API password they lack
    (a database seeded before they had them); returns how many records it created, the agents it gave roles and
    those it gave an API password."""
    created = 0
    async with db.transaction() as session:
        for plan in PLANS:
            if await session.get(Plan, plan.plan_id) is None:
                session.add(Plan.model_validate(plan.model_dump()))
                created += 1
    for code, name in VENDORS.items():
        created += await create_vendor(db, code, name)
    for vendor, username, password, pin in API_USERS:
        created += await create_api_user(db, vendor, username, password, pin)
    granted, secured = [], []
    for spec in AGENTS:
        if await create_agent(db, spec):
            created += 1
            continue
        if await _grant_roles(db, spec):
            granted.append(spec.username)
        if await _give_api_password(db, spec):
            secured.append(spec.username)
    return created, granted, secured


def _api_password_rule(
    vendor_code: str,
    username: str,
    roles: tuple[str, ...],
    api_password: str | None,
    no_api_password: bool,
    *,
    has_one: bool = False,
) -> str | None:
    """An agent given `support` or `admin` needs an API password: a new one, the one it has, or `no_api_password`
    saying it goes without (AdminError otherwise, before anything changes); the warning when it goes without."""
    if api_password is not None and no_api_password:
        raise AdminError("give --require-api-password or --no-api-password, not both; nothing changed")
    held = " and ".join(role for role in ROLES if role in PRIVILEGED and role in roles)
    if not held or api_password is not None or (has_one and not no_api_password):
        return None
    if not no_api_password:
        raise AdminError(
            f"agent {username} of {vendor_code} would have the {held} role without an API password: give "
            "--require-api-password PASSWORD (it must then send it as agent_password on every API call), or "
            "--no-api-password to go without one; nothing changed"
        )
    return (
        f"warning: agent {username} of {vendor_code} has the {held} role and no API password: whoever holds an API "
        f"credential of {vendor_code} can act as it (give it one with lineup agent set-roles --vendor-id "
        f"{vendor_code} --username {shlex.quote(username)} --role … --require-api-password …)"
    )


async def _has_api_user(session: Session, vendor: Vendor, username: str) -> bool:
    query = select(ApiUser.id).where(ApiUser.vendor_id == vendor.id, ApiUser.username == username)
    return (await session.exec(query)).first() is not None


async def _api_user(vendor_id: int, username: str, password: str, pin: str, *, agent_id: int | None = None) -> ApiUser:
    """An API user's row, its secrets hashed; bound to `agent_id` when it is that agent's own."""
    return ApiUser(
        vendor_id=vendor_id,
        username=username,
        agent_id=agent_id,
        password_hash=await hash_secret_async(password),
        pin_hash=await hash_secret_async(pin),
        login_hash=await hash_secret_async(login_secret(password, pin)),
    )


async def _vendor(session: Session, code: str) -> Vendor:
    vendor = (await session.exec(select(Vendor).where(Vendor.code == code.upper()))).first()
    if vendor is None:
        raise AdminError(f"vendor {code} does not exist")
    return vendor


async def _agent(session: Session, username: str, vendor_code: str | None) -> Agent:
    """The vendor's agent of that name; without a vendor, the one agent of that name (several vendors may each
    have one: then the vendor must be named)."""
    query = select(Agent, Vendor).join(Vendor, col(Vendor.id) == col(Agent.vendor_id)).where(Agent.username == username)
    if vendor_code is not None:
        query = query.where(Vendor.code == (await _vendor(session, vendor_code)).code)
    found = (await session.exec(query)).all()
    if not found:
        of = f" of vendor {vendor_code.upper()}" if vendor_code else ""
        raise AdminError(f"agent {username}{of} does not exist")
    if len(found) > 1:
        codes = ", ".join(sorted(vendor.code for _, vendor in found))
        raise AdminError(f"agent {username} exists for several vendors ({codes}); give --vendor-id")
    return found[0][0]


def _known_roles(roles: tuple[str, ...]) -> str:
    """The roles column's value for `roles`, or AdminError naming the unknown ones and the allowed names."""
    if unknown := set(roles) - set(ROLES):
        raise AdminError(f"unknown role(s): {', '.join(sorted(unknown))}; roles are {', '.join(ROLES)}")
    if not roles:
        raise AdminError(f"give at least one --role; roles are {', '.join(ROLES)}")
    return ",".join(dict.fromkeys(roles))


async def _grant_roles(db: Database, spec: AgentSpec) -> bool:
    """Adds the spec's roles the existing agent lacks, keeping any others; False when it had them all."""
    async with db.transaction() as session:
        agent = await _agent(session, spec.username, spec.vendor_code)
        missing = [role for role in spec.roles if role not in agent.role_set]
        if not missing:
            return False
        agent.roles = _known_roles((*agent.roles.split(","), *missing))
        session.add(agent)
    return True


async def _give_api_password(db: Database, spec: AgentSpec) -> bool:
    """Gives the existing agent the spec's API password when it needs none yet; False when it needs one already
    (whatever it is) or the spec has none."""
    if spec.api_password is None:
        return False
    async with db.transaction() as session:
        agent = await _agent(session, spec.username, spec.vendor_code)
        if agent.requires_api_password:
            return False
        agent.requires_api_password, agent.api_password_hash = True, await hash_secret_async(spec.api_password)
        session.add(agent)
    return True


async def _set_api_user_active(session: Session, user_id: int, active: bool) -> None:
    # The row is updated first: a login racing this either finds it inactive, or committed its token before
    # this transaction could lock the row, and the token is deleted below (api/auth.py issues them).
    await session.execute(update(ApiUser).where(col(ApiUser.id) == user_id).values(active=active))
    if not active:
        await auth.drop_all(session, user_id)  # they answer `Invalid Token`, as a token never issued does
        await close_login_entries(session, api_user_id=user_id)
