"""Vendors, API users and agents as the admin CLI and the demo seed create them."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.passwords import hash_secret_async, login_secret
from models.tables.agents import ROLES, Agent
from models.tables.auth import ApiUser, Vendor
from persistence.auth import tokens
from persistence.auth.logins import close_login_entries
from persistence.engine import Database


class AdminError(Exception):
    """A refusal the CLI prints as it is (unknown vendor, duplicate username, …)."""


@dataclass(frozen=True)
class AgentSpec:
    vendor_code: str
    username: str
    password: str
    pin: str | None = None
    roles: tuple[str, ...] = ("agent",)
    email: str | None = None
    api_password: str | None = None
    active: bool = True
    extra: dict[str, str] = field(default_factory=dict)


async def _vendor(session: AsyncSession, code: str) -> Vendor:
    vendor = (await session.exec(select(Vendor).where(Vendor.code == code.upper()))).first()
    if vendor is None:
        raise AdminError(f"vendor {code} does not exist")
    return vendor


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
    async with db.transaction() as session:
        vendor = await _vendor(session, vendor_code)
        query = select(ApiUser).where(ApiUser.vendor_id == vendor.id, ApiUser.username == username)
        if (await session.exec(query)).first():
            return False
        assert vendor.id is not None
        session.add(
            ApiUser(
                vendor_id=vendor.id,
                username=username,
                password_hash=await hash_secret_async(password),
                pin_hash=await hash_secret_async(pin),
                login_hash=await hash_secret_async(login_secret(password, pin)),
            )
        )
    return True


async def create_agent(db: Database, spec: AgentSpec) -> bool:
    """Creates the agent (and, with a PIN, API credentials under the same name); False if it exists."""
    unknown = set(spec.roles) - set(ROLES)
    if unknown:
        raise AdminError(f"unknown role(s): {', '.join(sorted(unknown))}; roles are {', '.join(ROLES)}")
    async with db.transaction() as session:
        vendor = await _vendor(session, spec.vendor_code)
        existing = (await session.exec(select(Agent).where(Agent.username == spec.username))).first()
        if existing is not None:
            if existing.vendor_id != vendor.id:
                raise AdminError(f"agent {spec.username} already exists for another vendor")
            return False
        assert vendor.id is not None
        session.add(
            Agent(
                vendor_id=vendor.id,
                username=spec.username,
                email=spec.email,
                roles=",".join(dict.fromkeys(spec.roles)),
                active=spec.active,
                password_hash=await hash_secret_async(spec.password),
                requires_api_password=spec.api_password is not None,
                api_password_hash=await hash_secret_async(spec.api_password) if spec.api_password else None,
            )
        )
    if spec.pin is not None:
        await create_api_user(db, spec.vendor_code, spec.username, spec.password, spec.pin)
    return True


async def set_agent_active(db: Database, username: str, active: bool) -> None:
    """Disabling an agent refuses its agent_id from then on and disables its API credentials (the API user of
    the same name and vendor that `agent create --pin` made), ending their sessions at once; enabling restores
    both."""
    async with db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).first()
        if agent is None:
            raise AdminError(f"agent {username} does not exist")
        agent.active = active
        session.add(agent)
        twin = select(ApiUser.id).where(ApiUser.vendor_id == agent.vendor_id, ApiUser.username == agent.username)
        if (user_id := (await session.exec(twin)).first()) is not None:
            await _set_api_user_active(session, user_id, active)


async def set_api_user_active(db: Database, vendor_code: str, username: str, active: bool) -> None:
    """Disabling an API user refuses its /authenticate and ends its sessions at once; enabling restores it."""
    async with db.transaction() as session:
        vendor = await _vendor(session, vendor_code)
        query = select(ApiUser.id).where(ApiUser.vendor_id == vendor.id, ApiUser.username == username)
        user_id = (await session.exec(query)).first()
        if user_id is None:
            raise AdminError(f"api user {username} of vendor {vendor.code} does not exist")
        await _set_api_user_active(session, user_id, active)


async def _set_api_user_active(session: AsyncSession, user_id: int, active: bool) -> None:
    # The row is updated first: a login racing this either finds it inactive, or committed its token before
    # this transaction could lock the row, and the token is deleted below (services/authenticate.py).
    await session.execute(update(ApiUser).where(col(ApiUser.id) == user_id).values(active=active))
    if not active:
        await tokens.drop_all(session, user_id)  # they answer `Invalid Token`, as a token never issued does
        await close_login_entries(session, api_user_id=user_id)
