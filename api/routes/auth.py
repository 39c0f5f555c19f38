"""`/auth`: agent_change_password and logout."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import respond, success
from api.gate import gate
from models.envelope import Envelope, MsgCode
from models.requests.auth import AgentChangePassword, AuthAction, Logout
from services import auth as operations
from services.context import Context
from services.logout import logout

router = APIRouter(tags=["auth"])
AuthBody = Annotated[AuthAction, Body(discriminator="action")]
AuthContext = Annotated[Context, Depends(gate("auth"))]


@router.post("/auth", response_model=Envelope)
async def auth(request: Request, body: AuthBody, ctx: AuthContext) -> JSONResponse:
    """Agent credentials, and the end of a session."""
    match body:
        case AgentChangePassword():
            return success(request, msg=await operations.agent_change_password(body=body, ctx=ctx))
        case Logout():
            # The session's tokens are gone, this answer's too: it carries none.
            return respond(request, Envelope(msg_code=MsgCode.SUCCESS, msg=await logout(ctx=ctx), token=""))
