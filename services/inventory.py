"""`/inventory`: check_device_compatibility and its original-service twin get_query_device (asks the carrier
through a lookup workflow)."""

from __future__ import annotations

from typing import Any

from activities.devices import DeviceActivities
from models.messages.devices import DeviceQuery
from models.requests.devices import CheckDeviceCompatibility
from models.results import device_compatibility_result
from services.carriers import resolve_carrier
from services.context import Context
from services.lookups import carrier_lookup
from workflows.ids import device_workflow_id


async def check_device_compatibility(*, body: CheckDeviceCompatibility, ctx: Context) -> dict[str, Any]:
    """The carrier's verdict in section 2.7's shape plus its native device block; a carrier rejection
    (blacklisted) is RESTAPI110 with its description."""
    query = DeviceQuery(body.imei, resolve_carrier(body.carrier, ctx.settings))
    answer = await carrier_lookup(
        ctx, DeviceActivities.device_compatibility, query, workflow_id=device_workflow_id(ctx.request_id), answer=dict
    )
    return device_compatibility_result(answer)


get_query_device = check_device_compatibility  # the same call under the original's T-Mobile name
