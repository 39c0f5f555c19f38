"""The dispatcher's checks, in decisions.md's order: token → action → source → agent → company →
agent password → role. Field rules come after, from the group's body model."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Request

from api import tokens
from api.deps import SessionsDep, SettingsDep
from api.errors import LineupError, refuse
from models.db import transaction
from models.envelope import MsgCode
from models.passwords import verify_secret_async
from models.requests.base import ActionRequest
from models.requests.catalog import ACTION_GROUP, ACTION_MODELS
from models.settings import Settings
from models.tables.agent import Agent
from models.tables.vendor import Vendor
from sqlmodel import select

PORTAL_SOURCE = "ENROLLMENT_PORTAL"


@dataclass(frozen=True)
class Caller:
    """Who is calling: the token's vendor and API user, and the acting agent when one was named."""

    vendor_id: int
    vendor_code: str
    api_user_id: int
    login_log_id: int | None
    agent: Agent | None
    action: str


async def read_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object, or a RESTAPI110 saying why it is not one."""
    raw = await request.body()
    if not raw.strip():
        raise refuse("Request body is empty; send a JSON object")
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise refuse("Content-Type must be application/json", rest_status=415)
    try:
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise refuse("Request body is not valid JSON") from None
    if not isinstance(payload, dict):
        raise refuse("Request body must be a JSON object")
    return payload


JsonObject = Annotated[dict[str, Any], Depends(read_object)]


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
    if text not in model.SOURCES | {PORTAL_SOURCE} | settings.extra_source_list:
        raise LineupError(MsgCode.SOURCE, "Source Not Allowed")


async def _check_agent(
    model: type[ActionRequest], payload: dict[str, Any], vendor_id: int, sessions: SessionsDep
) -> Agent | None:
    agent_id = payload.get("agent_id")
    name = str(agent_id).strip() if isinstance(agent_id, str | int) and not isinstance(agent_id, bool) else ""
    if not name:
        if model.AGENT_REQUIRED:
            raise LineupError(MsgCode.AGENT, "Agent Id should not be blank")
        return None
    async with sessions() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == name))).first()
    if agent is None or not agent.active:
        raise LineupError(MsgCode.AGENT, "Invalid Agent Id")
    if agent.vendor_id != vendor_id:
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    if agent.requires_api_password:
        offered = payload.get("agent_password")
        if not isinstance(offered, str) or not await verify_secret_async(agent.api_password_hash, offered):
            raise LineupError(MsgCode.AGENT, "Invalid Agent ID or Password")
    return agent


def _check_role(model: type[ActionRequest], agent: Agent | None) -> None:
    if model.ROLE is not None and (agent is None or model.ROLE not in agent.role_set):
        raise LineupError(MsgCode.UNAUTHORIZED, "Unauthorized Access")


def gate(group: str) -> Callable[..., Awaitable[Caller]]:
    """The dependency every operation route of `group` runs before its body is validated."""

    async def check(
        request: Request,
        sessions: SessionsDep,
        settings: SettingsDep,
        token: Annotated[str | None, Header(description="Single-use token from /authenticate")] = None,
    ) -> Caller:
        payload = await read_object(request)
        _remember_transaction_id(request, payload)
        async with transaction(sessions) as session:
            owner = await tokens.consume(session, token)
            request.state.fresh_token = await tokens.issue(session, owner, settings.token_ttl_seconds)
            vendor = await session.get(Vendor, owner.vendor_id)
        assert vendor is not None  # the token's foreign key guarantees it
        request.state.vendor_id, request.state.api_user_id = owner.vendor_id, owner.api_user_id
        action, model = _action_model(group, payload)
        request.state.action = action
        _check_source(model, payload.get("source"), settings)
        agent = await _check_agent(model, payload, owner.vendor_id, sessions)
        request.state.agent = agent.username if agent else None
        _check_role(model, agent)
        return Caller(owner.vendor_id, vendor.code, owner.api_user_id, owner.login_log_id, agent, action)

    return check


def _remember_transaction_id(request: Request, payload: dict[str, Any]) -> None:
    value = payload.get("external_transaction_id")
    if isinstance(value, str) and value.isascii() and value.isalnum() and len(value) <= 64:
        request.state.external_transaction_id = value
