"""`/mail`: send."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.mail import MailAction, Send
from services import mail as operations
from services.context import Context

router = APIRouter(tags=["mail"])
MailBody = Annotated[MailAction, Body(discriminator="action")]
MailContext = Annotated[Context, Depends(gate("mail"))]


@router.post("/mail", response_model=Envelope)
async def mail(request: Request, body: MailBody, ctx: MailContext) -> JSONResponse:
    """E-mail."""
    match body:
        case Send():
            return success(request, msg=await operations.send(body=body, ctx=ctx))
