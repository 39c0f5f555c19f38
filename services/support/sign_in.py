"""Signing in to the support console and finding the agent of a session. Only active agents with the `support`
role of an active vendor get in. The sign-in is throttled by the agent lockout the API's agent_password uses:
the attempt is claimed before the password is verified, so parallel guesses cannot outrun it, and only a
refused one is counted as a failure."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from models.errors import refuse
from models.passwords import verify_secret_async
from models.requests.support import SignIn
from models.settings import Settings
from persistence.agents import AgentRef
from persistence.auth.logins import LOCKED, Throttle, claim_agent_attempt, settle_agent_attempt
from persistence.support import active_agent, agent_login, end_session, open_session, touch_session
from persistence.uow import UnitOfWork

SUPPORT = "support"
INVALID = "Invalid username or password"
NOT_SUPPORT = "Only agents with the support role may use the console"


@dataclass(frozen=True)
class ConsoleAgent:
    """The signed-in agent and its vendor's code: everything the console shows is that vendor's."""

    agent: AgentRef
    vendor_code: str


@dataclass(frozen=True)
class Session:
    token: str  # goes to the browser's cookie; the database keeps only its hash
    who: ConsoleAgent


def idle_limit(settings: Settings) -> timedelta:
    return timedelta(minutes=settings.auth.console_idle_minutes)


async def sign_in(*, form: SignIn, ip: str | None, uow: UnitOfWork, settings: Settings) -> Session:
    """A new session of the support agent, or a refusal (LineupError) that says as little as it can."""
    async with uow.transaction() as session:
        login = await agent_login(session, form.username)
    throttle = Throttle.of(settings)
    if login is not None and not await claim_agent_attempt(uow, login.agent.id, throttle):
        raise refuse(LOCKED, rest_status=429)
    # Verified even for an unknown agent (against a dummy hash): a wrong name costs what a wrong password does.
    password_ok = await verify_secret_async(login.password_hash if login else None, form.password)
    if login is None:
        raise refuse(INVALID, rest_status=401)
    ok = password_ok and login.agent.active and login.vendor_active
    await settle_agent_attempt(uow, login.agent.id, throttle, ok=ok)
    if not ok:
        raise refuse(INVALID, rest_status=401)
    if SUPPORT not in login.agent.roles:
        raise refuse(NOT_SUPPORT, rest_status=403)
    agent = login.agent
    async with uow.transaction() as session:
        token = await open_session(
            session, agent_id=agent.id, vendor_id=agent.vendor_id, ip=ip, idle=idle_limit(settings)
        )
    return Session(token, ConsoleAgent(agent, login.vendor_code))


async def signed_in(*, token: str | None, uow: UnitOfWork, settings: Settings) -> ConsoleAgent | None:
    """The agent of a live session, its idle clock moved; None for no session, an idle one (now deleted), or
    an agent who lost the support role or was disabled since signing in."""
    if not token:
        return None
    async with uow.transaction() as session:
        agent_id = await touch_session(session, token, idle=idle_limit(settings))
        found = await active_agent(session, agent_id) if agent_id is not None else None
        if agent_id is not None and (found is None or SUPPORT not in found[0].roles):
            await end_session(session, token)
            return None
    return ConsoleAgent(*found) if found is not None else None


async def sign_out(*, token: str, uow: UnitOfWork) -> None:
    async with uow.transaction() as session:
        await end_session(session, token)
