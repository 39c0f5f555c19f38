"""`/enrollment`: check_service_availability, which issues enrollment ids, and company_carrier_list."""

from __future__ import annotations

import base64
import secrets
from typing import Any

from activities.enrollment import EnrollmentActivities
from models.errors import refuse
from models.geography import city_of_zip, state_of_zip
from models.messages.enrollment import CarrierList
from models.requests.enrollment import CheckServiceAvailability, CompanyCarrierList
from models.tables.enrollment import Enrollment
from services.context import Context
from services.lookups import carrier_lookup
from workflows.ids import lookup_workflow_id

CARRIERS = ["TMB", "ATT", "VER"]
NOT_SERVED = "We do not provide services at the users Zip Code"


def new_enrollment_id() -> str:
    """'E' and 80 random bits in base32: unguessable, so ids cannot be enumerated."""
    return "E" + base64.b32encode(secrets.token_bytes(10)).decode()


async def check_service_availability(*, body: CheckServiceAvailability, ctx: Context) -> dict[str, Any]:
    """Records a new enrollment id as available for the ZIP (its city and state as USPS names them)."""
    state = state_of_zip(body.zip_code)
    if state is None:
        raise refuse(NOT_SERVED)
    slot = Enrollment(
        enrollment_id=new_enrollment_id(), vendor_id=ctx.caller.vendor_id, zip_code=body.zip_code, state=state,
        enrollment_type=body.enrollment_type, issued_by=ctx.caller.agent_username,
    )  # fmt: skip
    async with ctx.uow.transaction() as session:
        session.add(slot)
    return {
        "enrollment_id": slot.enrollment_id, "zip_code": body.zip_code, "city": city_of_zip(body.zip_code),
        "state": state, "carriers": CARRIERS,
    }  # fmt: skip


async def company_carrier_list(*, body: CompanyCarrierList, ctx: Context) -> list[dict[str, str]]:
    """The carriers the company sells on, with the carrier's own numeric ids."""
    found = await carrier_lookup(
        ctx, EnrollmentActivities.carriers, ctx.caller.vendor_code,
        workflow_id=lookup_workflow_id("carriers", ctx.request_id), answer=CarrierList,
    )  # fmt: skip
    return [{"carrier_id": c.carrier_id, "carrier": c.carrier, "carrier_name": c.carrier_name} for c in found.carriers]
