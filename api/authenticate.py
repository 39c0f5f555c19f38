"""`POST /authenticate`: issues the first single-use token of a session (the form public clients of the original
service send: vendor_id, username, password, pin)."""

from __future__ import annotations

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from api.dispatch import read_object
from api.envelope import refusal, render
from api.facts import facts_of
from api.problems import describe_all
from dispatch.context import Resources
from models.envelope import Envelope, MsgCode
from models.errors import LineupError
from models.requests.auth import AuthenticateRequest
from services.auth.authenticate import authenticate as check_credentials
from services.auth.authenticate import invalid

ACTION = "authenticate"


async def authenticate(request: Request) -> Response:
    """Checks vendor, username, password and PIN; answers a token and the session's login-log OTP."""
    resources: Resources = request.app.state.resources
    facts = facts_of(request)
    facts.action = ACTION
    try:
        try:
            form = AuthenticateRequest.model_validate(
                await read_object(request, resources.settings.api.max_json_members)
            )
        except ValidationError as problems:
            # A credential that cannot be right (too long, not text) is answered as a wrong one.
            raise invalid(*describe_all(problems)) from None
        ip = request.client.host if request.client else None
        login = await check_credentials(form=form, ip=ip, uow=facts.uow, resources=resources)
    except LineupError as error:
        return render(resources.settings.api, facts, refusal(error), rest_status=error.rest_status)
    envelope = Envelope(
        MsgCode.SUCCESS, "Successfully Authenticate", token=login.token, data={"login_log_otp": login.otp}
    )
    return render(resources.settings.api, facts, envelope)
