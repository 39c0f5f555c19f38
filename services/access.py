"""Who may call what, in decisions.md's order: token → action → source → agent → company → agent
password → role. Field rules come after, from the group's request model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from models.envelope import MsgCode
from models.errors import LineupError
from models.passwords import verify_secret_async
from models.requests.base import PORTAL_SOURCE, ActionRequest
from models.requests.catalog import ACTION_GROUP, ACTION_MODELS
from models.requests.wellformed import malformed
from models.settings import Settings
from persistence import tokens
from persistence.agents import AgentRef, vendor_and_agent
from persistence.logins import LOCKED, Throttle, claim_agent_attempt, settle_agent_attempt
from persistence.uow import UnitOfWork
from services.context import Caller

MOST_AGENT_NAME = 100  # the column's length: a longer name names no agent
INVALID_PASSWORD = "Invalid Agent ID or Password"


@dataclass(frozen=True)
class Admission:
    """The answer's fresh token (every answer past the token check carries one), who holds the token,
    and either the caller or the refusal the checks after the token came to."""

    fresh_token: str
    owner: tokens.TokenOwner
    action: str | None = None  # known once the action resolved
    caller: Caller | None = None
    refusal: LineupError | None = None


async def admit(
    *, uow: UnitOfWork, settings: Settings, group: str, token: str | None, payload: dict[str, Any]
) -> Admission:
    """Consumes the token and issues the next one, and looks up vendor and agent, in one transaction;
    checks the rest. Token errors raise; any later refusal comes back beside the fresh token."""
    action, refusal, username = None, None, _agent_name(payload)
    try:
        action, model = _action_model(group, payload)
        _check_source(model, payload.get("source"), settings)
        if username is not None and (malformed(username) or len(username) > MOST_AGENT_NAME):
            # No agent is named like that, and the database could not take the name.
            raise LineupError(MsgCode.AGENT, "Invalid Agent Id")
    except LineupError as problem:
        refusal = problem
    async with uow.transaction() as session:
        owner = await tokens.consume(session, token)
        fresh = await tokens.issue(session, owner, settings.auth.token_ttl_seconds)
        if refusal is not None:
            return Admission(fresh, owner, action, refusal=refusal)
        vendor_code, agent = await vendor_and_agent(session, vendor_id=owner.vendor_id, username=username)
    assert action is not None
    try:
        await _check_agent(model, agent, username, payload, owner.vendor_id, uow=uow, settings=settings)
    except LineupError as problem:
        return Admission(fresh, owner, action, refusal=problem)
    caller = Caller(owner.vendor_id, vendor_code, owner.api_user_id, owner.login_log_id, agent, action)
    return Admission(fresh, owner, action, caller=caller)


def _action_model(group: str, payload: dict[str, Any]) -> tuple[str, type[ActionRequest]]:
    action = payload.get("action")
    if not isinstance(action, str) or not action.strip():
        raise LineupError(MsgCode.ACTION_REQUIRED, "Action required")
    if action not in ACTION_GROUP or (ACTION_GROUP[action] == group and action not in ACTION_MODELS):
        raise LineupError(MsgCode.ACTION_UNKNOWN, "Action does not exist")
    if ACTION_GROUP[action] != group:
        raise LineupError(MsgCode.WRONG_GROUP, "Invalid method")
    return action, ACTION_MODELS[action]


def _check_source(model: type[ActionRequest], source: Any, settings: Settings) -> None:
    text = source.strip().upper() if isinstance(source, str) else ""
    if not text:
        if model.SOURCE_REQUIRED:
            raise LineupError(MsgCode.SOURCE, "Source can not be blank")
        return
    if text not in model.SOURCES | {PORTAL_SOURCE} | settings.api.extra_source_list:
        raise LineupError(MsgCode.SOURCE, "Source Not Allowed")


def _agent_name(payload: dict[str, Any]) -> str | None:
    agent_id = payload.get("agent_id")
    if isinstance(agent_id, bool) or not isinstance(agent_id, str | int):
        return None
    return str(agent_id).strip() or None


async def _check_agent(
    model: type[ActionRequest], agent: AgentRef | None, username: str | None, payload: dict[str, Any], vendor_id: int,
    *, uow: UnitOfWork, settings: Settings,
) -> None:  # fmt: skip
    if username is None:
        if model.AGENT_REQUIRED:
            raise LineupError(MsgCode.AGENT, "Agent Id should not be blank")
    elif agent is None or not agent.active:
        raise LineupError(MsgCode.AGENT, "Invalid Agent Id")
    elif agent.vendor_id != vendor_id:
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    elif agent.requires_api_password:
        await _check_agent_password(uow, settings, agent, payload.get("agent_password"))
    if model.ROLE is not None and (agent is None or model.ROLE not in agent.roles):
        raise LineupError(MsgCode.UNAUTHORIZED, "Unauthorized Access")


async def _check_agent_password(uow: UnitOfWork, settings: Settings, agent: AgentRef, offered: Any) -> None:
    """The agent's API password, throttled as /authenticate is: the attempt is counted before the password is
    verified, so parallel guesses cannot outrun the lockout, and settled after: only a wrong password is counted,
    a right one clears the count."""
    if not isinstance(offered, str) or malformed(offered):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD)
    throttle = Throttle.of(settings)
    if not await claim_agent_attempt(uow, agent.id, throttle):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [LOCKED], rest_status=429)
    ok = await verify_secret_async(agent.api_password_hash, offered)
    await settle_agent_attempt(uow, agent.id, throttle, ok=ok)
    if not ok:
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD)
