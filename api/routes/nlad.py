"""`/nlad`: nlad_etc_check, tpiv_listing."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.eligibility import NladAction, NladEtcCheck, TpivListing
from services import nlad as operations
from services.context import Context

router = APIRouter(tags=["nlad"])
NladBody = Annotated[NladAction, Body(discriminator="action")]
NladContext = Annotated[Context, Depends(gate("nlad"))]


@router.post("/nlad", response_model=Envelope)
async def nlad(request: Request, body: NladBody, ctx: NladContext) -> JSONResponse:
    """Eligibility check and the identity-verification failures of a ZIP."""
    match body:
        case NladEtcCheck():
            return success(request, await operations.nlad_etc_check(body=body, ctx=ctx))
        case TpivListing():
            return success(request, await operations.tpiv_listing(body=body, ctx=ctx))
