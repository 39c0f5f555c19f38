"""Who may call what, in decisions.md's order: token → action → source → agent → company → agent password →
role. The token is read with its vendor and the named agent (persistence.auth.tokens.present); field rules come
after, from the action's request model."""

from __future__ import annotations

from dispatch.actions import Action
from models.envelope import MsgCode
from models.errors import LineupError
from models.passwords import verify_secret_async
from models.requests.wellformed import malformed
from models.settings import Settings
from persistence.agents import AgentRef
from persistence.auth.logins import LOCKED, Throttle, claim_agent_attempt, settle_agent_attempt
from persistence.uow import UnitOfWork

MOST_AGENT_NAME = 100  # the column's length: a longer name names no agent
INVALID_PASSWORD = "Invalid Agent ID or Password"


def check_source(action: Action, source: object, settings: Settings) -> None:
    text = source.strip().upper() if isinstance(source, str) else ""
    if not text:
        if action.source_required:
            raise LineupError(MsgCode.SOURCE, "Source can not be blank")
        return
    if not action.allows(text, settings.api.extra_source_list):
        raise LineupError(MsgCode.SOURCE, "Source Not Allowed")


def agent_name(agent_id: object) -> str | None:
    """The agent a body names (samples send some ids as numbers); a name no agent could have names none."""
    if isinstance(agent_id, bool) or not isinstance(agent_id, str | int):
        return None
    return str(agent_id).strip() or None


def named_agent_refusal(username: str | None) -> LineupError | None:
    """A name that cannot be an agent's: no agent is named like that, and the database could not take it."""
    if username is not None and (malformed(username) or len(username) > MOST_AGENT_NAME):
        return LineupError(MsgCode.AGENT, "Invalid Agent Id")
    return None


def check_agent(action: Action, agent: AgentRef | None, username: str | None, vendor_id: int) -> bool:
    """The agent rules but the password; True when the agent's API password must be checked next."""
    if username is None:
        if action.agent_required:
            raise LineupError(MsgCode.AGENT, "Agent Id should not be blank")
    elif agent is None or not agent.active:
        # Agents are found among the token's vendor's only: another vendor's agent_id is unknown here, and
        # saying `Invalid company` would tell a channel which names other vendors use.
        raise LineupError(MsgCode.AGENT, "Invalid Agent Id")
    elif agent.vendor_id != vendor_id:  # kept in its place of the order; the lookup makes it unreachable
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    elif agent.requires_api_password:
        return True
    return False


def check_role(action: Action, agent: AgentRef | None) -> None:
    if action.role is not None and (agent is None or action.role not in agent.roles):
        raise LineupError(MsgCode.UNAUTHORIZED, "Unauthorized Access", [needs_role(action.role)])


def needs_role(role: str) -> str:
    """RESTAPI109's error: the role the agent lacks, so a channel knows what to ask its vendor for."""
    return f"This operation needs the {role} role"


async def check_agent_password(uow: UnitOfWork, settings: Settings, agent: AgentRef, offered: object) -> None:
    """The agent's API password, throttled as /authenticate is: the attempt is counted before the password is
    verified, so parallel guesses cannot outrun the lockout, and settled after: only a wrong password is counted,
    a right one clears the count. The request's transaction is released first: argon2 and the throttle's waits
    hold neither a connection nor a lock, and the count commits whatever the request comes to."""
    if not isinstance(offered, str) or malformed(offered):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD)
    await uow.release()
    throttle = Throttle.of(settings)
    if not await claim_agent_attempt(uow, agent.id, throttle):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [LOCKED], rest_status=429)
    ok = await verify_secret_async(agent.api_password_hash, offered)
    await settle_agent_attempt(uow, agent.id, throttle, ok=ok)
    if not ok:
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD)
