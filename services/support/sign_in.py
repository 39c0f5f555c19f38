"""Signing in to the support console and finding the agent of a session. Only active agents with the `support`
role of an active vendor get in, and anyone else is answered as a wrong password is (no oracle for the
passwords of agents without the role). The sign-in has its own throttle, apart from the agent's API password's,
so failed sign-ins lock only the console: per client address first (dispatch.gates), then per agent,
claimed before the password is verified so parallel guesses cannot outrun it; only a support agent's attempts
are counted. Each attempt costs one argon2, in the verification queue /authenticate uses.

A session ends when its agent signs out, sits idle LINEUP_CONSOLE_IDLE_MINUTES, has lasted
LINEUP_CONSOLE_MAX_HOURS whatever its activity, or when the agent's password changed after it began."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from dispatch.gates import THROTTLED, Busy, LoginGates
from models.errors import refuse
from models.passwords import verify_secret_async
from models.requests.support import SignIn
from models.settings import Settings
from persistence.agents import AgentRef
from persistence.auth.logins import (
    LOCKED,
    Throttle,
    claim_console_attempt,
    release_console_attempt,
    settle_console_attempt,
)
from persistence.support import (
    AgentLogin,
    SessionLimits,
    active_agent,
    agent_logins,
    end_session,
    open_session,
    touch_session,
)
from persistence.uow import UnitOfWork

SUPPORT = "support"
INVALID = "Invalid username or password"
WHICH_VENDOR = "Agents of several vendors have this username: enter your vendor id as well"


@dataclass(frozen=True)
class ConsoleAgent:
    """The signed-in agent and its vendor's code: everything the console shows is that vendor's."""

    agent: AgentRef
    vendor_code: str


@dataclass(frozen=True)
class Session:
    token: str  # goes to the browser's cookie; the database keeps only its hash
    who: ConsoleAgent


def limits(settings: Settings) -> SessionLimits:
    auth = settings.auth
    return SessionLimits(
        idle=timedelta(minutes=auth.console_idle_minutes), most=timedelta(hours=auth.console_max_hours)
    )


def may_use_console(login: AgentLogin | None) -> bool:
    return login is not None and login.agent.active and login.vendor_active and SUPPORT in login.agent.roles


async def sign_in(*, form: SignIn, ip: str | None, uow: UnitOfWork, settings: Settings, gates: LoginGates) -> Session:
    """A new session of the support agent, or a refusal (LineupError) that says as little as it can."""
    if not gates.console.admit(ip):
        raise refuse(THROTTLED, rest_status=429)
    async with uow.transaction() as session:
        # Only agents who may sign in are candidates: a name one vendor gives a support agent and another an
        # agent without the role names the first alone, and needs no vendor id.
        logins = [
            found
            for found in await agent_logins(session, form.username, vendor_code=form.vendor_id)
            if may_use_console(found)
        ]
    if len(logins) > 1:
        await _verify(gates, None, form.password)  # costs what any sign-in costs
        raise refuse(WHICH_VENDOR, rest_status=401)
    login = logins[0] if logins else None
    if login is None:
        # Verified against the dummy hash, uncounted: an agent who may not sign in costs and answers what a
        # wrong password does, whatever password it was sent with.
        await _verify(gates, None, form.password)
        raise refuse(INVALID, rest_status=401)
    agent, throttle = login.agent, Throttle.of(settings)
    if not await claim_console_attempt(uow, agent.id, throttle):
        raise refuse(LOCKED, rest_status=429)
    try:
        ok = await _verify(gates, login.password_hash, form.password)
    except Exception:
        await release_console_attempt(uow, agent.id)
        raise
    await settle_console_attempt(uow, agent.id, throttle, ok=ok)
    if not ok:
        raise refuse(INVALID, rest_status=401)
    async with uow.transaction() as session:
        token = await open_session(
            session, agent_id=agent.id, vendor_id=agent.vendor_id, ip=ip, limits=limits(settings)
        )
    return Session(token, ConsoleAgent(agent, login.vendor_code))


async def _verify(gates: LoginGates, stored: str | None, offered: str) -> bool:
    """One argon2 in the shared verification queue; a full queue is a throttled sign-in."""
    try:
        async with gates.queue.slot():
            return await verify_secret_async(stored, offered)
    except Busy:
        raise refuse(THROTTLED, rest_status=429) from None


async def signed_in(*, token: str | None, uow: UnitOfWork, settings: Settings) -> ConsoleAgent | None:
    """The agent of a live session, its idle clock moved; None for no session, one that ended (idle, too old,
    or begun before its agent's last password change: now deleted), or an agent who lost the support role or
    was disabled since signing in."""
    if not token:
        return None
    async with uow.transaction() as session:
        agent_id = await touch_session(session, token, limits=limits(settings))
        found = await active_agent(session, agent_id) if agent_id is not None else None
        if agent_id is not None and (found is None or SUPPORT not in found[0].roles):
            await end_session(session, token)
            return None
    return ConsoleAgent(*found) if found is not None else None


async def sign_out(*, token: str, uow: UnitOfWork) -> None:
    async with uow.transaction() as session:
        await end_session(session, token)
