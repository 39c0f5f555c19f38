"""The dispatcher's HTTP side: reads the body as a JSON object and the `token` header, runs the access
checks (services.access) and hands the route the operation's Context."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Header, Request

from api.context import operation_context
from models.errors import TokenRefused, refuse
from services.access import admit
from services.context import Context, Resources


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
TokenHeader = Annotated[str | None, Header(description="Single-use token from /authenticate")]


def gate(group: str) -> Callable[..., Awaitable[Context]]:
    """The dependency every operation route of `group` runs before its body is validated."""

    async def check(request: Request, token: TokenHeader = None) -> Context:
        payload = await read_object(request)
        _remember_transaction_id(request, payload)
        resources: Resources = request.app.state.resources
        state = request.state
        try:
            admission = await admit(
                uow=state.uow, settings=resources.settings, group=group, token=token, payload=payload
            )
        except TokenRefused as refused:
            state.token_failure = refused.reason  # counted by RequestContext with the rest of the call's facts
            raise
        state.fresh_token, state.action = admission.fresh_token, admission.action
        state.vendor_id, state.api_user_id = admission.owner.vendor_id, admission.owner.api_user_id
        if admission.refusal is not None:
            raise admission.refusal
        assert admission.caller is not None
        state.agent = admission.caller.agent_username
        return operation_context(request, admission.caller, fresh_token=admission.fresh_token)

    return check


def _remember_transaction_id(request: Request, payload: dict[str, Any]) -> None:
    value = payload.get("external_transaction_id")
    if isinstance(value, str) and value.isascii() and value.isalnum() and len(value) <= 64:
        request.state.external_transaction_id = value
