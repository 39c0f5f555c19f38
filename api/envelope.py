"""Turns an Envelope into the HTTP response, in the legacy (always 200) or rest status mode: the only way an
answer leaves the API."""

from __future__ import annotations

from dataclasses import replace

import pydantic_core
from starlette.responses import Response

from api.facts import Facts
from models.envelope import Envelope, MsgCode
from models.errors import LineupError
from models.setting_groups import ApiSettings

JSON = "application/json"

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


OUTAGE_STATUSES = frozenset({502, 503, 504})  # something the call needed was down: the alerts' outage class


def status_of(settings: ApiSettings, code: MsgCode, rest_status: int | None = None) -> int:
    status = rest_status or REST_STATUS[code]
    return 200 if settings.http_status == "legacy" and status != 500 else status


def render(settings: ApiSettings, facts: Facts, envelope: Envelope, *, rest_status: int | None = None) -> Response:
    """Adds the token the answer carries (a RESTAPI001 answer carries "", decisions.md) and the echoed
    transaction id, records the outcome in the request's facts, and serializes once."""
    token = envelope.token
    if token is None:
        token = "" if envelope.msg_code is MsgCode.TOKEN else facts.fresh_token
    envelope = replace(envelope, token=token, external_transaction_id=facts.external_transaction_id)
    facts.msg_code = envelope.msg_code.value
    facts.status = status_of(settings, envelope.msg_code, rest_status)
    facts.outage = (rest_status or REST_STATUS[envelope.msg_code]) in OUTAGE_STATUSES
    return Response(pydantic_core.to_json(envelope.body()), status_code=facts.status, media_type=JSON)


def refusal(error: LineupError) -> Envelope:
    """A LineupError as the envelope says it (with the data it shows beside it, when it has any)."""
    envelope = Envelope(msg_code=error.code, msg=error.msg, errors=error.errors)
    if error.data is not None:
        envelope = replace(envelope, data=pydantic_core.to_jsonable_python(error.data))
    return envelope


def failure(msg: str, *errors: str) -> Envelope:
    return Envelope(msg_code=MsgCode.ERROR, msg=msg, errors=list(errors))
