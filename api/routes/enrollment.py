"""`/enrollment` check_service_availability and `/plan` plan_list: the supporting operations."""

from __future__ import annotations

import base64
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.deps import SessionsDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from models.db import transaction
from models.envelope import Envelope
from models.geography import state_of_zip
from models.requests.enrollment import CheckServiceAvailability, EnrollmentAction
from models.tables.enrollment import Enrollment

router = APIRouter(tags=["enrollment"])
EnrollmentBody = Annotated[EnrollmentAction, Body(discriminator="action")]
EnrollmentCaller = Annotated[Caller, Depends(gate("enrollment"))]
CARRIERS = ["TMB", "ATT", "VER"]
NOT_SERVED = "We do not provide services at the users Zip Code"


def new_enrollment_id() -> str:
    """'E' and 80 random bits in base32: unguessable, so ids cannot be enumerated."""
    return "E" + base64.b32encode(secrets.token_bytes(10)).decode()


@router.post("/enrollment", response_model=Envelope)
async def enrollment(request: Request, body: EnrollmentBody, caller: EnrollmentCaller, sessions: SessionsDep) -> JSONResponse:
    """Service availability: issues the enrollment id an order's line is created with."""
    match body:
        case CheckServiceAvailability():
            return success(request, await check_service_availability(body, caller, sessions))


async def check_service_availability(body: CheckServiceAvailability, caller: Caller, sessions: SessionsDep) -> dict[str, Any]:
    """Records a new enrollment id as available for the ZIP."""
    state = state_of_zip(body.zip_code)
    if state is None:
        raise refuse(NOT_SERVED)
    slot = Enrollment(
        enrollment_id=new_enrollment_id(), vendor_id=caller.vendor_id, zip_code=body.zip_code, state=state,
        enrollment_type=body.enrollment_type, issued_by=caller.agent.username if caller.agent else None,
    )  # fmt: skip
    async with transaction(sessions) as session:
        session.add(slot)
    return {"enrollment_id": slot.enrollment_id, "zip_code": body.zip_code, "state": state, "carriers": CARRIERS}
