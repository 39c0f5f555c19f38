"""`POST /authenticate`: issues the first single-use token of a session."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from api.deps import SessionsDep, SettingsDep
from api.envelope import respond
from api.gate import JsonObject
from api.login import authenticate as check_credentials
from models.envelope import Envelope, MsgCode
from models.requests.authenticate import AuthenticateRequest

router = APIRouter(tags=["authentication"])


@router.post("/authenticate", response_model=Envelope)
async def authenticate(
    request: Request, _: JsonObject, form: AuthenticateRequest, sessions: SessionsDep, settings: SettingsDep
) -> JSONResponse:
    """Checks vendor, username, password and PIN; answers a token and the session's login-log OTP."""
    request.state.action = "authenticate"
    ip = request.client.host if request.client else None
    login = await check_credentials(sessions, settings, form, ip)
    envelope = Envelope(
        msg_code=MsgCode.SUCCESS, msg="Successfully Authenticate", token=login.token, data={"login_log_otp": login.otp}
    )
    return respond(request, envelope)
