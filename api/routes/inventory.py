"""`/inventory`: check_device_compatibility."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.devices import CheckDeviceCompatibility, InventoryAction
from services import inventory as operations
from services.context import Context

router = APIRouter(tags=["inventory"])
InventoryBody = Annotated[InventoryAction, Body(discriminator="action")]
InventoryContext = Annotated[Context, Depends(gate("inventory"))]


@router.post("/inventory", response_model=Envelope)
async def inventory(request: Request, body: InventoryBody, ctx: InventoryContext) -> JSONResponse:
    """Device compatibility."""
    match body:
        case CheckDeviceCompatibility():
            return success(request, await operations.check_device_compatibility(body=body, ctx=ctx))
