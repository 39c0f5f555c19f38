"""assign_esim (`/customer`): a line's eSIM profile as its creation entry gives it. The profile the carrier
assigned at activation; or, for a line waiting for activation that has no SIM yet, one the carrier reserves
now through EsimAssignmentWorkflow (the profile sealed in the line by its activity, never in the workflow's
history), which the line's activation then uses. Asked again, the same profile."""

from __future__ import annotations

from activities.esim import PHYSICAL_SIM
from dispatch.actions import action
from dispatch.context import Context
from dispatch.lookups import run_lookup
from models.answers.enrollment import LPA_EXAMPLE, EsimProfile
from models.errors import refuse
from models.messages.esim import EsimRequest
from models.refusals import not_waiting_for_activation
from models.requests.enrollment import AssignEsim
from models.statuses import LineStatus
from persistence.enrollment import vendor_line
from services.enrollment.entries import line_extras
from services.enrollment.lines import NO_CUSTOMER
from workflows.enrollment.esim import EsimAssignmentWorkflow
from workflows.ids import esim_workflow_id

ESIM = EsimProfile.of("8901261234567890128", LPA_EXAMPLE)


# Sources: the interface's core three, as the mobile channels that install eSIMs call it (TABLET among them).
@action("customer", example=ESIM)
async def assign_esim(*, body: AssignEsim, ctx: Context) -> EsimProfile:
    """The line's eSIM profile {ICCID, ACTIVATION_CODE, QR_ACTIVATION_CODE, QR_CODE_IMAGE}: the one it has, or
    one the carrier assigns now to a line waiting for activation without a SIM; a physical SIM's line is
    refused, as another vendor's enrollment id is (it names nothing)."""
    async with ctx.uow.transaction() as session:
        line = await vendor_line(session, body.enrollment_id, vendor_id=ctx.caller.vendor_id)
    if line is None:
        raise refuse(NO_CUSTOMER, rest_status=404)
    if line.esim_profile is None:
        if line.physical_sim:
            raise refuse(PHYSICAL_SIM, rest_status=409)
        if line.status != LineStatus.WAITING_ACTIVATION:  # its activation (under way) brings the profile
            raise refuse(not_waiting_for_activation(line.status), rest_status=409)
        budget = ctx.settings.systems.lookup_budget_seconds
        request = EsimRequest(line.enrollment_id, ctx.caller.vendor_code, budget_seconds=budget)
        workflow_id = esim_workflow_id(line.enrollment_id)
        await run_lookup(ctx, EsimAssignmentWorkflow.run, request, workflow_id=workflow_id, shared=True)
    profile = (await line_extras(ctx, [line.enrollment_id]))[line.enrollment_id].esim
    assert profile is not None  # sealed by the activity before its workflow answered
    return profile
