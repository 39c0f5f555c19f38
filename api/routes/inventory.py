"""`/inventory`: check_device_compatibility (asks the carrier through a workflow)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.deps import SettingsDep, TemporalDep
from api.envelope import success
from api.gate import Caller, gate
from api.workflows import outside_system
from models.envelope import Envelope
from models.messages import DeviceQuery
from models.requests.inventory import CheckDeviceCompatibility, InventoryAction
from models.results import device_compatibility_result
from workflows.eligibility import DeviceCheckWorkflow
from workflows.ids import device_workflow_id

router = APIRouter(tags=["inventory"])
InventoryBody = Annotated[InventoryAction, Body(discriminator="action")]
InventoryCaller = Annotated[Caller, Depends(gate("inventory"))]


@router.post("/inventory", response_model=Envelope)
async def inventory(
    request: Request, body: InventoryBody, caller: InventoryCaller, settings: SettingsDep,
    temporal: TemporalDep,
) -> JSONResponse:  # fmt: skip
    """Device compatibility."""
    match body:
        case CheckDeviceCompatibility():
            return success(request, await check_device_compatibility(body, settings, temporal, request))


async def check_device_compatibility(
    body: CheckDeviceCompatibility, settings: SettingsDep, temporal: TemporalDep, request: Request
) -> dict[str, str]:
    """The carrier's verdict in section 2.7's shape; a carrier rejection (blacklisted) is RESTAPI110 with its
    description."""
    async with outside_system("The carrier"):
        answer: dict[str, Any] = await temporal.require().execute_workflow(
            DeviceCheckWorkflow.run, DeviceQuery(body.imei, body.carrier),
            id=device_workflow_id(request.state.request_id), task_queue=settings.temporal_task_queue,
        )  # fmt: skip
    return device_compatibility_result(answer)
