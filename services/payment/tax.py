"""The payment domain's tax: update_tax_calculation_status_plum, which marks a calculation collected through
its workflow (one per calculation, started by the first update)."""

from __future__ import annotations

from temporalio.client import WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ActivityError, ApplicationError

from dispatch.actions import action
from dispatch.context import Context
from models.answers.payment import TAX_STATUS, TaxStatus
from models.errors import LineupError, refuse, upstream_down
from models.failures import CARRIER_REJECTED
from models.messages.payment import CollectTax, MarkCollected, TaxReceipt
from models.requests.payment import UpdateTaxCalculationStatus
from models.statuses import TaxStatus as CalcStatus
from models.tables.payment import TaxCalculation
from orchestration.link import started_anyway
from workflows.ids import tax_workflow_id
from workflows.payment import TaxCollectionWorkflow, refusal


@action("payment", interface=True, example=TAX_STATUS)
async def update_tax_calculation_status_plum(*, body: UpdateTaxCalculationStatus, ctx: Context) -> TaxStatus:
    """Marks a tax calculation collected: `temporary` (provisional) or `final` (closes it), through its
    workflow's update, whose validator refuses a bad move; a final calculation is answered from the database."""
    async with ctx.uow.transaction() as session:
        calc = await session.get(TaxCalculation, body.calc_id)
    if calc is None or calc.vendor_id != ctx.caller.vendor_id:
        raise refuse("Calculation not found", rest_status=404)
    mark = MarkCollected(body.iccid, body.status, budget_seconds=ctx.settings.systems.lookup_budget_seconds)
    receipt = TaxReceipt(calc.calc_id, CalcStatus(calc.status), calc.reference_number)
    if receipt.status == CalcStatus.COLLECTED_FINAL:
        if problem := refusal(calc.calc_id, mark, receipt):
            raise refuse(problem, rest_status=409)
    else:
        settings = ctx.settings
        collect = CollectTax(
            calc.calc_id, ctx.caller.vendor_code, settings.payment.tax_idle_days, settings.worker.history_events
        )
        receipt = await _collect(ctx, mark, collect)
    return TaxStatus(
        STATUSCODE="00",
        DESCRIPTION=receipt.description or "Tax collected",
        CALCID=receipt.calc_id,
        REFERENCENUMBER=receipt.reference_number or "",
    )


async def _collect(ctx: Context, mark: MarkCollected, collect: CollectTax) -> TaxReceipt:
    start = WithStartWorkflowOperation(
        TaxCollectionWorkflow.run,
        collect,
        id=tax_workflow_id(collect.calc_id),
        task_queue=ctx.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        # A run that ended idle (or final, just now) may start again: it loads the calculation's state first.
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )
    client = await ctx.temporal_client()
    try:
        async with ctx.outside("The carrier", within=ctx.lookup_seconds()):
            return await client.execute_update_with_start_workflow(
                TaxCollectionWorkflow.mark_collected, mark, start_workflow_operation=start
            )
    except WorkflowUpdateFailedError as failure:
        raise _refusal(failure.cause) from None
    finally:
        await started_anyway(start)  # its outcome read: no error left unread


def _refusal(cause: BaseException | None) -> LineupError:
    """An update that failed: the carrier's outage is the outage answer (it said "Activity task failed"), its
    refusal its words; the workflow's own refusal (a bad move) a conflict."""
    if not isinstance(cause, ActivityError):
        return refuse(str(getattr(cause, "message", cause)), rest_status=409)
    while isinstance(cause, ActivityError):
        cause = cause.cause
    if isinstance(cause, ApplicationError) and cause.type == CARRIER_REJECTED:
        return refuse(cause.message)
    return upstream_down("The carrier", timed_out=not isinstance(cause, ApplicationError))
