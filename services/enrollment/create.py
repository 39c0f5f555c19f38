"""The enrollment domain's creation: create_customer_prepaid_multiline (and the original's names for it). The
lines are accepted all or nothing (services.enrollment.intake), then one workflow per request creates the
customers, tries each line's carrier step at once and answers; each line goes on in a workflow of its own. The
answer has the carrier's MDNs it got within LINEUP_SYNC_WAIT_SECONDS."""

from __future__ import annotations

from datetime import timedelta

from temporalio.client import WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from dispatch.actions import WEB_SOURCES, action
from dispatch.context import Context
from models.answers.enrollment import CREATED, LineEntry
from models.errors import refuse
from models.messages.enrollment import EnrollmentOrder, EnrollmentResult, Pacing
from models.requests.enrollment import ALIASES, CreateMultiline
from observability.metrics import enrollment_started
from orchestration.link import started_anyway
from persistence.enrollment import lines_of_order, plan_of
from services.enrollment.entries import line_entries
from services.enrollment.intake import accept
from services.enrollment.passwords import hash_later
from workflows.enrollment.order import EnrollmentWorkflow, enrollment_search_attributes
from workflows.ids import enrollment_workflow_id


@action("customer", interface=True, aliases=ALIASES, sources=WEB_SOURCES, example=CREATED)
async def create_customer_prepaid_multiline(*, body: CreateMultiline, ctx: Context) -> list[LineEntry]:
    """Creates prepaid customers, one per line, under a parent account (1 to LINEUP_MAX_LINES lines): accepted
    all or nothing, then the enrollment's workflow is started (or found, for a repeated request) and waited for."""
    settings = ctx.settings
    if len(body.lines) > settings.enrollment.max_lines:
        raise refuse(f"Lines must hold at most {settings.enrollment.max_lines} lines")
    ids = [line.enrollment_id for line in body.lines]
    order_id = enrollment_workflow_id(body.parent_enrollment_id, ids)
    accepted = await accept(ctx, body, order_id=order_id)
    if accepted.stored:
        enrollment_started()
    vendor, agent = ctx.caller.vendor_code, ctx.caller.agent_username
    order = EnrollmentOrder(order_id, body.parent_enrollment_id, accepted.plans, vendor, agent, Pacing.of(settings))
    try:
        result = await _run(ctx, order)
    finally:  # the lines this request stored are committed by now, whatever Temporal said
        if accepted.stored:
            hash_later(ctx.resources.db, ctx.cipher, body.lines)
    return await line_entries(ctx, result.lines, invoice_number=body.invoice_number, pins=accepted.pins)


async def _run(ctx: Context, order: EnrollmentOrder) -> EnrollmentResult:
    """Starts or finds the enrollment's workflow and waits for its customer records (and, a little, MDNs)."""
    settings = ctx.settings
    start = WithStartWorkflowOperation(
        EnrollmentWorkflow.run,
        order,
        id=order.order_id,
        task_queue=ctx.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        task_timeout=timedelta(seconds=settings.temporal.workflow_task_timeout_seconds),
        search_attributes=enrollment_search_attributes(order),
    )
    wait = settings.enrollment.sync_wait_seconds
    client = await ctx.temporal_client()
    try:
        async with ctx.outside("The workflow engine", within=wait + ctx.lookup_seconds()):
            try:
                return await client.execute_update_with_start_workflow(
                    EnrollmentWorkflow.customers, start_workflow_operation=start
                )
            except RPCError as error:
                if error.status != RPCStatusCode.NOT_FOUND:
                    raise
                # The order completed while this repeated request's update was on its way: as below.
    except WorkflowAlreadyStartedError:
        pass  # the enrollment finished long ago: its lines' records are the answer to the repeated request
    finally:
        await started_anyway(start)  # its outcome read: no error left unread
    async with ctx.uow.transaction() as session:
        return EnrollmentResult([plan_of(line) for line in await lines_of_order(session, order.order_id)])
