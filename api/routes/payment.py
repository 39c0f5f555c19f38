"""`/payment`: update_tax_calculation_status_plum, make_payment."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.payment import MakePayment, PaymentAction, PaymentDetails, UpdateTaxCalculationStatus
from services import payment as operations
from services.context import Context

router = APIRouter(tags=["payment"])
PaymentBody = Annotated[PaymentAction, Body(discriminator="action")]
PaymentContext = Annotated[Context, Depends(gate("payment"))]


@router.post("/payment", response_model=Envelope)
async def payment(request: Request, body: PaymentBody, ctx: PaymentContext) -> JSONResponse:
    """Payments and tax collection."""
    match body:
        case MakePayment():
            return success(request, await operations.make_payment(body=body, ctx=ctx))
        case PaymentDetails():
            return success(request, await operations.payment_details(body=body, ctx=ctx))
        case UpdateTaxCalculationStatus():
            return success(request, await operations.update_tax_calculation_status_plum(body=body, ctx=ctx))
