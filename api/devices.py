"""The devices domain: check_device_compatibility and its original-service twin get_query_device, asked of the
carrier through a lookup workflow."""

from __future__ import annotations

from api.dispatch import Context, action, run_lookup
from models.devices import DEVICE, CheckDeviceCompatibility, Device, DeviceQuery
from models.envelope import refuse
from models.types import resolve_carrier
from workflows.devices import DeviceCheckWorkflow, device_workflow_id


@action("inventory", interface=True, aliases=("get_query_device",), example=DEVICE)
async def check_device_compatibility(*, body: CheckDeviceCompatibility, ctx: Context) -> Device:
    """The carrier's verdict on a device (by IMEI) in section 2.7's shape plus its native device block; a device
    the carrier refuses (blacklisted) is RESTAPI110 with its description, and with the device's data."""
    carrier = resolve_carrier(body.carrier, ctx.settings.systems.carrier_aliases)
    query = DeviceQuery(body.imei, carrier, budget_seconds=ctx.settings.systems.lookup_budget_seconds)
    reply = await run_lookup(ctx, DeviceCheckWorkflow.run, query, workflow_id=device_workflow_id(ctx.request_id))
    device = Device.of(reply)
    if reply.status_code != "00":
        raise refuse(reply.description, data=device)
    return device
