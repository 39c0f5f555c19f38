"""PortStatusWorkflow (`port-<enrollment_id>`): polls a submitted port-in with durable timers until it
reaches a terminal state, backing off as the port ages and giving up as ABANDONED after the limit. A
port waiting on its timer costs no worker memory; continue-as-new keeps the history small."""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.porting import PortingActivities
    from models.messages.porting import (
        PortCheck,
        PortCorrection,
        PortEligibility,
        PortPoll,
        PortResubmit,
        PortView,
        PortWatch,
    )
    from models.statuses import TERMINAL_PORT_STATES, PortStatus
    from workflows import policies

RESOLUTION_REQUIRED = PortStatus.RESOLUTION_REQUIRED
POLLS_PER_RUN = 200  # continue-as-new after this many polls


def poll_interval(base_seconds: float, age: timedelta) -> timedelta:
    """The base interval for the first day, twice it up to day three, four times it after."""
    factor = 1 if age < timedelta(days=1) else 2 if age < timedelta(days=3) else 4
    return timedelta(seconds=base_seconds * factor)


@workflow.defn
class PortStatusWorkflow:
    @workflow.init
    def __init__(self, watch: PortWatch) -> None:
        self._watch, self._corrections = watch, watch.corrections
        self._view = watch.view or PortView(PortStatus.SUBMITTED)
        self._correcting = False

    @workflow.run
    async def run(self, watch: PortWatch) -> PortView:
        submitted = datetime.fromisoformat(watch.submitted_at)
        deadline = submitted + timedelta(days=watch.max_days)
        polls = 0
        while self._view.status not in TERMINAL_PORT_STATES:
            remaining = deadline - workflow.now()
            if remaining <= timedelta(0):
                await self._record(
                    PortView(PortStatus.ABANDONED, carrier_response="No final answer within the port-in limit")
                )
                break
            if self._view.status == RESOLUTION_REQUIRED:
                # Nothing moves until update_portin sends corrections; no polling meanwhile.
                with contextlib.suppress(TimeoutError):
                    await workflow.wait_condition(lambda: self._view.status != RESOLUTION_REQUIRED, timeout=remaining)
                continue
            await workflow.sleep(min(poll_interval(watch.poll_seconds, workflow.now() - submitted), remaining))
            await self._poll()
            polls += 1
            if polls >= POLLS_PER_RUN or workflow.info().is_continue_as_new_suggested():
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(
                    PortWatch(watch.enrollment_id, watch.vendor_code, watch.port_id, watch.submitted_at,
                              watch.poll_seconds, watch.max_days, watch.polls + polls, self._corrections, self._view)
                )  # fmt: skip
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._view

    async def _poll(self) -> None:
        poll = PortPoll(self._watch.enrollment_id, self._watch.vendor_code, self._watch.port_id)
        try:
            view = await workflow.execute_activity_method(PortingActivities.port_status, poll, **policies.PORT_POLL)
        except ActivityError as failure:  # the carrier did not answer: the next poll asks again
            cause = str(failure.cause or failure)
            workflow.logger.warning("port %s status poll failed: %s", self._watch.enrollment_id, cause)
            return
        if view != self._view:
            await self._record(view)

    async def _record(self, view: PortView) -> None:
        await workflow.execute_local_activity_method(
            PortingActivities.record_port_status, args=[self._watch.enrollment_id, view], **policies.STORE
        )
        self._view = view

    @workflow.update
    async def correct(self, correction: PortCorrection) -> PortView:
        """update_portin: the corrected old-account data is stored; resubmit it and resume polling."""
        self._correcting = True
        try:
            key = f"{workflow.info().workflow_id}:resubmit:{self._corrections}"
            resubmit = PortResubmit(self._watch.enrollment_id, self._watch.vendor_code, self._watch.port_id, key)
            view = await workflow.execute_activity_method(
                PortingActivities.resubmit_port, resubmit, **policies.lookup(correction.budget_seconds)
            )
            self._corrections += 1
            await self._record(view)
            return view
        finally:
            self._correcting = False

    @correct.validator
    def _only_when_resolution_is_required(self, correction: PortCorrection) -> None:
        if self._view.status != RESOLUTION_REQUIRED or self._correcting:
            raise ValueError(
                f"The port-in is {self._view.status}; corrections are accepted only when it is {RESOLUTION_REQUIRED}"
            )

    @workflow.query
    def status(self) -> PortView:
        return self._view


@workflow.defn
class PortValidationWorkflow:
    """validate_portin (`portcheck-<request id>`): whether a number can come in, and from which carrier."""

    @workflow.run
    async def run(self, check: PortCheck) -> PortEligibility:
        return await workflow.execute_activity_method(
            PortingActivities.validate_port, check, **policies.lookup(check.budget_seconds)
        )
