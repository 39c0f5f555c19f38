"""Turns an Envelope into the HTTP response, in the legacy (always 200) or rest status mode."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from models.envelope import Envelope, MsgCode
from models.settings import Settings

UNSET: Any = object()

# Status per code in `rest` mode; an error may name its own (405, 409, 413, 502, …).
REST_STATUS: dict[MsgCode, int] = {
    MsgCode.SUCCESS: 200,
    MsgCode.TOKEN: 401,
    MsgCode.MODULE_REQUIRED: 404,
    MsgCode.ACTION_REQUIRED: 400,
    MsgCode.SOURCE: 403,
    MsgCode.AGENT: 403,
    MsgCode.MODULE_UNKNOWN: 404,
    MsgCode.ACTION_UNKNOWN: 400,
    MsgCode.COMPANY: 403,
    MsgCode.WRONG_GROUP: 400,
    MsgCode.UNAUTHORIZED: 403,
    MsgCode.MULTIPLE: 400,
    MsgCode.ERROR: 400,
}


def render(
    settings: Settings, state: dict[str, Any], envelope: Envelope, *, rest_status: int | None = None
) -> JSONResponse:
    """The only way a response leaves the API: adds the fresh token and the echoed transaction id.

    `state` is the request's scope state, so middleware and route handlers render alike."""
    if envelope.token is None:
        # A RESTAPI001 answer carries "" (decisions.md); otherwise the token minted at the token check.
        envelope.token = "" if envelope.msg_code is MsgCode.TOKEN else state.get("fresh_token")
    envelope.external_transaction_id = state.get("external_transaction_id")
    state["msg_code"] = envelope.msg_code.value
    status = rest_status or REST_STATUS[envelope.msg_code]
    if settings.api.http_status == "legacy" and status != 500:
        status = 200
    return JSONResponse(envelope.body(), status_code=status)


def respond(request: Request, envelope: Envelope, *, rest_status: int | None = None) -> JSONResponse:
    return render(request.app.state.settings, request.scope.setdefault("state", {}), envelope, rest_status=rest_status)


def success(request: Request, data: Any = UNSET, *, msg: str = "Success") -> JSONResponse:
    envelope = Envelope(msg_code=MsgCode.SUCCESS, msg=msg)
    if data is not UNSET:
        envelope.data = data
    return respond(request, envelope)


def failure(msg: str, *errors: str) -> Envelope:
    return Envelope(msg_code=MsgCode.ERROR, msg=msg, errors=list(errors))
