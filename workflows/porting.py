"""PortInWorkflow (`port-<enrollment_id>`): one line's port-in, from submission to its end. A PORTIN line's order
submits first and starts it with the submission; a port added after creation (create_portin_v2…) starts it
unsubmitted. It submits (under the carrier step's retry budget, STUCK until a retry), follows the port to a
terminal state, then gives the line the ported number: a waiting line becomes ACTIVE on it; an ACTIVE line changes
number and its first one is released at the carrier. A port that ends otherwise leaves an ACTIVE line as it was.

Polling is one watch_port activity repeated by its retry policy: while the port stays as the workflow knows it, a
poll costs no workflow task, history event or database write. The carrier's push makes it ask at once;
continue-as-new keeps the history small. PortValidationWorkflow is validate_portin's lookup."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Never

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.porting import PortingActivities
    from models.enrollment.lines import LineProgress, LineStatus, StuckState
    from models.porting import (
        HOLD_ENDED,
        TERMINAL_PORT_STATES,
        PortCheck,
        PortCorrection,
        PortEligibilityReply,
        PortFinish,
        PortResubmit,
        PortStart,
        PortStarted,
        PortStatus,
        PortView,
        PortWatchPoll,
        not_awaiting_corrections,
    )
    from workflows import policies
    from workflows.enrollment import CarrierStep, LineTracker, Rejected

RESOLUTION_REQUIRED = PortStatus.RESOLUTION_REQUIRED
POLLS_PER_RUN = 200  # continue-as-new after this many watch activities
CARRIER_PUSHED = "carrier_pushed"  # the signal the API's port-status endpoint sends
BANDS = (timedelta(days=1), timedelta(days=3))  # the port's ages at which its poll interval doubles
ABANDONED = PortView(PortStatus.ABANDONED, carrier_response="No final answer within the port-in limit")
GAVE_WAY = PortView(PortStatus.CANCELLED, carrier_response=HOLD_ENDED)  # intake has stored it so already


def poll_interval(base_seconds: float, age: timedelta) -> timedelta:
    """The base interval for the first day, twice it up to day three, four times it after."""
    return timedelta(seconds=base_seconds * 2 ** sum(age >= end for end in BANDS))


@workflow.defn
class PortInWorkflow:
    @workflow.init
    def __init__(self, start: PortStart) -> None:
        self._start = start
        self._submitted = start.submitted
        self._corrections = start.corrections
        self._view = start.view or PortView(PortStatus.SUBMITTED if start.submitted else PortStatus.RECEIVED)
        status = LineStatus.ACTIVE if start.line_active else LineStatus.PORT_PENDING
        # An ACTIVE line keeps its number and its status until the port completes: only the port moves.
        self._line = LineTracker(LineProgress(start.enrollment_id, status), writes=not start.line_active)
        self._step = CarrierStep(
            self._line, start.pacing, step="port", stuck=start.stuck, continue_stuck=self._continue_stuck
        )
        self._correcting = False
        self._pushed = False
        self._resubmit = False  # update_portin's corrections for a port the holder's account check stopped
        self._submissions = 0
        self._gave_way = False  # another vendor's port of the number went ahead after this one's hold

    @workflow.run
    async def run(self, start: PortStart) -> PortView:
        while self._submitted is None or self._submitted.port_id is None:
            if self._view.status in TERMINAL_PORT_STATES:  # refused at the order's submission, or it gave way
                return await self._finish(self._view)
            if self._view.status == RESOLUTION_REQUIRED and not await self._corrected():
                return await self._finish(GAVE_WAY if self._gave_way else ABANDONED)
            try:
                outcome = await self._step.run(
                    PortingActivities.submit_and_record, start.vendor_code, final_rejection=True
                )
            except Rejected as rejected:
                return await self._finish(PortView(PortStatus.REJECTED, carrier_response=rejected.reason))
            self._submitted, self._submissions = outcome, self._submissions + 1
            self._view = outcome.view or PortView(PortStatus.SUBMITTED)
        await self._line.move(LineStatus.PORT_PENDING, saved=True)
        await self._follow(self._submitted.port_id, datetime.fromisoformat(self._submitted.submitted_at))
        return await self._finish(GAVE_WAY if self._gave_way else self._view)

    @workflow.signal
    def retry(self) -> None:
        """Support asks a port whose submission is STUCK to try it again."""
        self._step.retry_requested = True

    @workflow.signal(name=CARRIER_PUSHED)
    def carrier_pushed(self) -> None:
        """The carrier says the port changed: ask it now instead of at the next poll (its word is not taken
        as the new state; the poll is)."""
        self._pushed = True

    @workflow.signal
    def gave_way(self) -> None:
        """Intake cancelled this order (it had waited for corrections past LINEUP_PORT_HOLD_HOURS, and another
        vendor's port of the number came): the port ends CANCELLED, however it waits."""
        self._gave_way = True

    @workflow.update
    async def submission(self) -> PortStarted:
        """create_portin_v2…: answers once the carrier took the port (its port request number), refused it, or
        the submission got stuck. No timer: the caller bounds its own wait."""
        await workflow.wait_condition(
            lambda: (
                self._submitted is not None or self._view.status in TERMINAL_PORT_STATES or self._step.stuck is not None
            )
        )
        port_id = self._submitted.port_id if self._submitted else None
        if self._view.status == PortStatus.REJECTED:
            return PortStarted(LineStatus.PORT_REJECTED, None, self._view.carrier_response)
        if port_id is None and self._step.stuck is not None:
            return PortStarted(LineStatus.STUCK, None, self._step.stuck.error)
        return PortStarted(LineStatus.PORT_PENDING, port_id, self._view.resolution_description)

    @workflow.update
    async def correct(self, correction: PortCorrection) -> PortView:
        """update_portin: the corrected old-account data is stored; resubmit it and resume polling."""
        self._correcting = True
        try:
            if self._submitted is None or self._submitted.port_id is None:  # the holder's check runs again
                submissions, self._resubmit = self._submissions, True
                await workflow.wait_condition(
                    lambda: self._submissions > submissions or self._step.stuck is not None or self._gave_way
                )
                return GAVE_WAY if self._gave_way else self._view
            key = f"{workflow.info().workflow_id}:resubmit:{self._corrections}"
            resubmit = PortResubmit(self._start.enrollment_id, self._start.vendor_code, self._submitted.port_id, key)
            view = await workflow.execute_activity_method(
                PortingActivities.resubmit_port, resubmit, **policies.lookup(correction.budget_seconds)
            )
            self._corrections += 1
            await workflow.execute_local_activity_method(
                PortingActivities.record_port_status, args=[self._start.enrollment_id, view], **policies.STORE
            )
            self._view = view
            return view
        finally:
            self._correcting = False

    @correct.validator
    def _only_when_resolution_is_required(self, correction: PortCorrection) -> None:
        if self._gave_way:
            raise ValueError(not_awaiting_corrections(PortStatus.CANCELLED))
        if self._view.status != RESOLUTION_REQUIRED or self._correcting:
            raise ValueError(not_awaiting_corrections(self._view.status))

    @workflow.query
    def status(self) -> PortView:
        return self._view

    async def _corrected(self) -> bool:
        """A port the holder's account check stopped waits for update_portin's corrections (False: not within
        the port-in limit)."""
        self._resubmit = False
        with contextlib.suppress(TimeoutError):
            await workflow.wait_condition(
                lambda: self._resubmit or self._gave_way, timeout=timedelta(days=self._start.pacing.port_max_days)
            )
            return not self._gave_way
        return False

    async def _follow(self, port_id: str, began: datetime) -> None:
        """Watches the port until a terminal state, ABANDONED past the port-in limit."""
        pacing = self._start.pacing
        deadline = began + timedelta(days=pacing.port_max_days)
        watches = 0
        while self._view.status not in TERMINAL_PORT_STATES and not self._gave_way:
            now = workflow.now()
            if now >= deadline:
                self._view = ABANDONED
                return
            if self._view.status == RESOLUTION_REQUIRED:  # nothing moves until update_portin sends corrections
                with contextlib.suppress(TimeoutError):
                    await workflow.wait_condition(
                        lambda: self._view.status != RESOLUTION_REQUIRED or self._gave_way, timeout=deadline - now
                    )
                continue
            age = now - began
            band = min([deadline - now, *(end - age for end in BANDS if age < end)])  # the rest of its age band
            await self._watch_band(port_id, poll_interval(pacing.port_poll_seconds, age), band)
            watches += 1
            if (
                self._view.status not in TERMINAL_PORT_STATES
                and not self._gave_way
                and (watches >= POLLS_PER_RUN or workflow.info().is_continue_as_new_suggested())
            ):
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(
                    replace(
                        self._start,
                        submitted=self._submitted,
                        polls=self._start.polls + watches,
                        corrections=self._corrections,
                        view=self._view,
                    )
                )

    async def _watch_band(self, port_id: str, interval: timedelta, band: timedelta) -> None:
        """One watch_port activity: until it returns a new state (recorded), its band of the port's age ends,
        or the carrier pushes a change (then it is cancelled and the caller asks again at once). The activity
        runs one interval past the band: Temporal ends it when its next retry would come after its deadline,
        and a band shorter than an interval would otherwise end at its first attempt, again and again."""
        self._pushed = False
        began = workflow.now()
        poll = PortWatchPoll(self._start.enrollment_id, self._start.vendor_code, port_id, self._view)
        handle = workflow.start_activity_method(
            PortingActivities.watch_port, poll, **policies.port_watch(interval, band + interval)
        )
        await workflow.wait_condition(lambda: handle.done() or self._pushed or self._gave_way)
        if not handle.done():
            handle.cancel()  # waiting on its next retry: cancelled at once, without a worker
            with contextlib.suppress(ActivityError, asyncio.CancelledError):
                await handle
            return
        try:
            self._view = await handle
        except ActivityError as failure:  # its band ended with no news (or no answer): the next band asks again
            workflow.logger.debug("port %s watch ended: %s", self._start.enrollment_id, failure.cause or failure)
            # Never two polls within an interval (a watch ended early, e.g. refused at once), unless pushed.
            if (rest := began + interval - workflow.now()) > timedelta(0):
                with contextlib.suppress(TimeoutError):
                    await workflow.wait_condition(lambda: self._pushed, timeout=rest)

    async def _finish(self, view: PortView) -> PortView:
        """The port's end, recorded with what it means for the line; a replaced number is released."""
        finish = PortFinish(self._start.enrollment_id, self._start.vendor_code, view)
        progress = await workflow.execute_local_activity_method(PortingActivities.finish_port, finish, **policies.STORE)
        self._view = view
        self._line.writes = True  # the port's end is the line's to show, whichever state it had
        await self._line.move(LineStatus(progress.status), error=progress.error, saved=True, mdn=progress.mdn)
        if progress.released is not None:  # the number the line had before the ported one
            release = replace(finish, released=progress.released)
            await workflow.execute_activity_method(PortingActivities.release_number, release, **policies.RELEASE)
        await workflow.wait_condition(workflow.all_handlers_finished)
        return view

    async def _continue_stuck(self, stuck: StuckState) -> Never:
        workflow.continue_as_new(replace(self._start, stuck=stuck))


@workflow.defn
class PortValidationWorkflow:
    """validate_portin (`portcheck-<request id>`): whether a number can come in, and from which carrier."""

    @workflow.run
    async def run(self, check: PortCheck) -> PortEligibilityReply:
        return await workflow.execute_activity_method(
            PortingActivities.validate_port, check, **policies.lookup(check.budget_seconds)
        )
