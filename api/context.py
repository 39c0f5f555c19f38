"""The operation Context of one HTTP request: its caller, the unit of work the RequestContext middleware opened,
and the process's resources. The dispatcher (api.gate) and the support console (api.console) build it alike."""

from __future__ import annotations

from fastapi import Request

from services.context import Caller, Context, Resources


def operation_context(request: Request, caller: Caller, *, fresh_token: str | None = None) -> Context:
    resources: Resources = request.app.state.resources
    state = request.state
    return Context.of(resources, caller=caller, uow=state.uow, request_id=state.request_id, fresh_token=fresh_token)
