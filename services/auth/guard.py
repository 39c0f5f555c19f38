"""Who may change a privileged agent's password (issue 27, finding 14). agent_change_password sets a new password
and ends the agent's console sessions: any API user of the vendor could do that to a support or admin agent,
three times a day, and sign support out of the console. An agent with the `support` or `admin` role therefore
has its password changed only by a request that carries its current one in `agent_password`: its API password
when it has one (the dispatcher already checked it, decisions.md's "Agent password"), else its login password,
checked here, throttled on the agent as a wrong `agent_password` is."""

from __future__ import annotations

from dispatch.context import Context
from models.envelope import MsgCode
from models.errors import LineupError
from models.passwords import verify_secret_async
from models.requests.wellformed import malformed
from models.tables.agents import Agent
from persistence.agents import AgentRef
from persistence.auth.logins import LOCKED, Throttle, claim_agent_attempt, settle_agent_attempt

PRIVILEGED = frozenset({"support", "admin"})
INVALID_PASSWORD = "Invalid Agent ID or Password"  # decisions.md's answer to a missing or wrong agent password
NEEDS_CURRENT = (
    "Changing the password of an agent with the support or admin role needs that agent's current password in "
    "agent_password"
)


async def check_privileged_change(ctx: Context, agent: AgentRef, offered: str | None) -> None:
    """Refuses (RESTAPI104, saying why) a change of a support or admin agent's password without its current one."""
    if not agent.roles & PRIVILEGED or agent.requires_api_password:
        return  # not privileged, or its API password was the request's agent_password, checked already
    if offered is None or malformed(offered):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [NEEDS_CURRENT])
    async with ctx.uow.transaction() as session:
        stored = await session.get(Agent, agent.id)
    assert stored is not None  # the token's read found it
    await ctx.uow.commit_before_wait()  # argon2 and the throttle hold neither a connection nor a lock
    throttle = Throttle.of(ctx.settings)
    if not await claim_agent_attempt(ctx.uow, agent.id, throttle):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [LOCKED], rest_status=429)
    ok = await verify_secret_async(stored.password_hash, offered)
    await settle_agent_attempt(ctx.uow, agent.id, throttle, ok=ok)
    if not ok:
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [NEEDS_CURRENT])
