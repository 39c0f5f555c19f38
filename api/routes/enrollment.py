"""`/enrollment`: check_service_availability and company_carrier_list (supporting operations)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.enrollment import CheckServiceAvailability, CompanyCarrierList, EnrollmentAction
from services import enrollment as operations
from services.context import Context

router = APIRouter(tags=["enrollment"])
EnrollmentBody = Annotated[EnrollmentAction, Body(discriminator="action")]
EnrollmentContext = Annotated[Context, Depends(gate("enrollment"))]


@router.post("/enrollment", response_model=Envelope)
async def enrollment(request: Request, body: EnrollmentBody, ctx: EnrollmentContext) -> JSONResponse:
    """Service availability (issues the enrollment id a line is created with) and the carrier list."""
    match body:
        case CheckServiceAvailability():
            return success(request, await operations.check_service_availability(body=body, ctx=ctx))
        case CompanyCarrierList():
            return success(request, await operations.company_carrier_list(body=body, ctx=ctx))
