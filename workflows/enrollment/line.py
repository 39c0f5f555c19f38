"""LineWorkflow (`line-<enrollment_id>`): one line's activation, after its order's first attempt. The order
starts it with the line as it left it: ACTIVE (nothing more to do: the workflow is the line's place in the
Temporal UI), still ACTIVATING (the carrier did not answer in time: the activation goes on here with the same
key), stuck (the carrier refused it), or WAITING_ACTIVATION (activation_later=Y: it waits for `activate`, or for
a port-in to take the line over). A step that keeps failing parks the line in STUCK until support's `retry` or
its own timer; a line stuck long enough continues as new, still stuck."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Never

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.enrollment import EnrollmentActivities
    from models.messages.enrollment import Activation, LineProgress, LineStart, SimChange, StuckState
    from models.refusals import not_waiting_for_activation
    from models.statuses import IN_FLIGHT, LineStatus
    from workflows import policies
    from workflows.carrier_step import CarrierStep, LineTracker
    from workflows.search_attributes import ACTIVATION_TYPE


@workflow.defn
class LineWorkflow:
    @workflow.init
    def __init__(self, start: LineStart) -> None:
        plan = start.plan
        self._start = start
        error = start.stuck.error if start.stuck else None
        self._line = LineTracker(LineProgress(plan.enrollment_id, plan.status, plan.mdn, plan.msid, plan.msl, error))
        self._step = CarrierStep(
            self._line, start.pacing, step="activate", stuck=start.stuck, continue_stuck=self._continue_stuck
        )
        self._activation: Activation | None = None
        self._handed_over = False  # a port-in took the line waiting for activation (PortInWorkflow has it now)

    @workflow.run
    async def run(self, start: LineStart) -> LineProgress:
        if start.plan.status == LineStatus.ACTIVE:
            return self._line.progress
        if start.plan.activation_later and start.stuck is None:  # WAITING_ACTIVATION since its customer record
            await workflow.wait_condition(lambda: self._activation is not None or self._handed_over)
            if self._activation is None:  # shown as its port's from here on
                self._line.attributes.append(ACTIVATION_TYPE.value_set("PORTIN"))
                await self._line.move(LineStatus.PORT_PENDING, saved=True)
                return self._line.progress
            await self._change_sim(self._activation)
        done = await self._step.run(EnrollmentActivities.activate_and_record, start.vendor_code)
        await self._line.move(LineStatus.ACTIVE, saved=True, mdn=done.mdn, msid=done.msid, msl=done.msl)
        await workflow.wait_condition(workflow.all_handlers_finished)  # a waiting activate_line gets its answer
        return self._line.progress

    async def _continue_stuck(self, stuck: StuckState) -> Never:
        plan = replace(self._start.plan, status=LineStatus.STUCK, activation_later=False)
        workflow.continue_as_new(
            replace(self._start, plan=plan, stuck=stuck), search_attributes=workflow.info().typed_search_attributes
        )

    async def _change_sim(self, activation: Activation) -> None:
        """A SIM sent with activate_line replaces the attached one before the carrier sees the line; a ZIP gives
        the new number its area."""
        self._step.zip_code = activation.zip_code
        if activation.esn or activation.iccid:
            change = SimChange(self._start.plan.enrollment_id, activation.esn, activation.iccid)
            await workflow.execute_local_activity_method(EnrollmentActivities.change_sim, change, **policies.STORE)

    @workflow.signal
    def retry(self) -> None:
        """Support asks a STUCK line to try its failed step again."""
        self._step.retry_requested = True

    @workflow.signal
    def hand_over(self) -> None:
        """create_portin_v2…: the line waiting for activation is ported in instead; its port's workflow activates
        it on the ported number."""
        self._handed_over = True

    @workflow.update
    async def activate(self, activation: Activation) -> LineProgress:
        """activate_line: activates a line enrolled with activation_later=Y; answers once the carrier has (or
        after the caller's wait, with the line still activating)."""
        self._activation = activation
        with contextlib.suppress(TimeoutError):
            await workflow.wait_condition(self._settled, timeout=activation.wait_seconds)
        return self._line.progress

    @activate.validator
    def _only_while_waiting(self, activation: Activation) -> None:
        """Refused before it reaches history: a line in any other state (or already asked) is not activated."""
        status = self._line.progress.status
        if status != LineStatus.WAITING_ACTIVATION or self._activation is not None or self._handed_over:
            shown = "porting" if self._handed_over else "activating" if self._activation else status
            raise ValueError(not_waiting_for_activation(shown))

    def _settled(self) -> bool:
        status = self._line.progress.status
        return status not in IN_FLIGHT and status != LineStatus.WAITING_ACTIVATION

    @workflow.query
    def status(self) -> LineProgress:
        return self._line.progress
