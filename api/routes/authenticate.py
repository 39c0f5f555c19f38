"""`POST /authenticate`: issues the first single-use token of a session."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from api.deps import SettingsDep, UnitOfWorkDep
from api.envelope import respond
from api.gate import JsonObject
from models.envelope import Envelope, MsgCode
from models.requests.auth import AuthenticateRequest
from services.authenticate import authenticate as check_credentials

router = APIRouter(tags=["authentication"])


@router.post("/authenticate", response_model=Envelope)
async def authenticate(
    request: Request, _: JsonObject, form: AuthenticateRequest, uow: UnitOfWorkDep, settings: SettingsDep
) -> JSONResponse:
    """Checks vendor, username, password and PIN; answers a token and the session's login-log OTP."""
    request.state.action = "authenticate"
    ip = request.client.host if request.client else None
    login = await check_credentials(form=form, ip=ip, uow=uow, settings=settings)
    envelope = Envelope(
        msg_code=MsgCode.SUCCESS, msg="Successfully Authenticate", token=login.token, data={"login_log_otp": login.otp}
    )
    return respond(request, envelope)
