"""`/customer`: create_customer_prepaid_multiline (and its aliases), line_inquiry, activate_line, customer_info."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.enrollment import ActivateLine, CreateMultiline, CustomerAction, CustomerInfo, LineInquiry
from services import customer as operations
from services.context import Context

router = APIRouter(tags=["customer"])
CustomerBody = Annotated[CustomerAction, Body(discriminator="action")]
CustomerContext = Annotated[Context, Depends(gate("customer"))]


@router.post("/customer", response_model=Envelope)
async def customer(request: Request, body: CustomerBody, ctx: CustomerContext) -> JSONResponse:
    """Customer creation, line inquiry, later activation and customer information."""
    match body:
        case CreateMultiline():
            return success(request, await operations.create_customer_prepaid_multiline(body=body, ctx=ctx))
        case LineInquiry():
            return success(request, await operations.line_inquiry(body=body, ctx=ctx))
        case ActivateLine():
            return success(request, [await operations.activate_line(body=body, ctx=ctx)])
        case CustomerInfo():
            return success(request, await operations.customer_info(body=body, ctx=ctx))
