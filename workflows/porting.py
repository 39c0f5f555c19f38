"""PortStatusWorkflow (`port-<enrollment_id>`): follows a submitted port-in until it reaches a terminal state,
polling less often as the port ages and giving up as ABANDONED after the limit; continue-as-new keeps the
history small.

A poll is one attempt of the watch_port activity, repeated by its retry policy at the poll interval: while the
port stays as the workflow knows it, a poll costs one activity attempt (one billable action) and no workflow
task, no history event, no database write. The activity returns (and has recorded) a new state only. The
carrier's push (`carrier_pushed`, sent by the API's port-status endpoint) makes the workflow ask at once, so
with pushes on, polling is a slow fallback (LINEUP_PORT_PUSH_FALLBACK_SECONDS). Ports started before this
poll with a timer per poll (`by_retry` False), as their histories were recorded."""

from __future__ import annotations

import asyncio
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
        PortWatchPoll,
    )
    from models.statuses import TERMINAL_PORT_STATES, PortStatus
    from workflows import policies

RESOLUTION_REQUIRED = PortStatus.RESOLUTION_REQUIRED
POLLS_PER_RUN = 200  # continue-as-new after this many polls (by timer) or watch activities (by retry)
# Ports started from here on poll by one activity's retries; earlier histories took a timer per poll.
POLL_BY_RETRY = "port-poll-by-activity-retry"
CARRIER_PUSHED = "carrier_pushed"  # the signal the API's port-status endpoint sends


def poll_interval(base_seconds: float, age: timedelta) -> timedelta:
    """The base interval for the first day, twice it up to day three, four times it after."""
    factor = 1 if age < timedelta(days=1) else 2 if age < timedelta(days=3) else 4
    return timedelta(seconds=base_seconds * factor)


def band_end(age: timedelta) -> timedelta:
    """The age at which poll_interval changes next (or never, after day three)."""
    return (
        timedelta(days=1)
        if age < timedelta(days=1)
        else timedelta(days=3)
        if age < timedelta(days=3)
        else timedelta.max
    )


@workflow.defn
class PortStatusWorkflow:
    @workflow.init
    def __init__(self, watch: PortWatch) -> None:
        self._watch, self._corrections = watch, watch.corrections
        self._view = watch.view or PortView(PortStatus.SUBMITTED)
        self._correcting = False
        self._pushed = False

    @workflow.run
    async def run(self, watch: PortWatch) -> PortView:
        # A continued run carries the choice; a first run decides it once (a marker, on the first run only).
        by_retry = watch.by_retry if watch.by_retry is not None else workflow.patched(POLL_BY_RETRY)
        if by_retry:
            return await self._watch_by_retries(watch)
        return await self._poll_by_timers(watch)

    async def _watch_by_retries(self, watch: PortWatch) -> PortView:
        submitted = datetime.fromisoformat(watch.submitted_at)
        deadline = submitted + timedelta(days=watch.max_days)
        watches = 0
        while self._view.status not in TERMINAL_PORT_STATES:
            now = workflow.now()
            if now >= deadline:
                await self._record(
                    PortView(PortStatus.ABANDONED, carrier_response="No final answer within the port-in limit")
                )
                break
            if self._view.status == RESOLUTION_REQUIRED:
                with contextlib.suppress(TimeoutError):
                    await workflow.wait_condition(
                        lambda: self._view.status != RESOLUTION_REQUIRED, timeout=deadline - now
                    )
                continue
            age = now - submitted
            band = deadline - now if band_end(age) == timedelta.max else min(deadline - now, band_end(age) - age)
            await self._watch_band(poll_interval(watch.poll_seconds, age), band)
            watches += 1
            if self._view.status not in TERMINAL_PORT_STATES and (
                watches >= POLLS_PER_RUN or workflow.info().is_continue_as_new_suggested()
            ):
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(
                    PortWatch(
                        watch.enrollment_id,
                        watch.vendor_code,
                        watch.port_id,
                        watch.submitted_at,
                        watch.poll_seconds,
                        watch.max_days,
                        watch.polls + watches,
                        self._corrections,
                        self._view,
                        by_retry=True,
                    )
                )
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._view

    async def _watch_band(self, interval: timedelta, band: timedelta) -> None:
        """One watch_port activity: until it returns a new state (recorded), its band of the port's age ends,
        or the carrier pushes a change (then it is cancelled and the caller asks again at once). The activity
        runs one interval past the band: Temporal ends it when its next retry would come after its deadline,
        and a band shorter than an interval would otherwise end at its first attempt, again and again."""
        self._pushed = False
        began = workflow.now()
        poll = PortWatchPoll(self._watch.enrollment_id, self._watch.vendor_code, self._watch.port_id, self._view)
        handle = workflow.start_activity_method(
            PortingActivities.watch_port, poll, **policies.port_watch(interval, band + interval)
        )
        await workflow.wait_condition(lambda: handle.done() or self._pushed)
        if not handle.done():
            handle.cancel()  # waiting on its next retry: cancelled at once, without a worker
            with contextlib.suppress(ActivityError, asyncio.CancelledError):
                await handle
            return
        try:
            self._view = await handle
        except ActivityError as failure:  # its band ended with no news (or no answer): the next band asks again
            workflow.logger.debug("port %s watch ended: %s", self._watch.enrollment_id, failure.cause or failure)
            # Never two polls within an interval (a watch ended early, e.g. refused at once), unless pushed.
            if (rest := began + interval - workflow.now()) > timedelta(0):
                with contextlib.suppress(TimeoutError):
                    await workflow.wait_condition(lambda: self._pushed, timeout=rest)

    async def _poll_by_timers(self, watch: PortWatch) -> PortView:
        """Before POLL_BY_RETRY: a timer, an activity and a record per poll. Kept for ports started then."""
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
                    PortWatch(
                        watch.enrollment_id,
                        watch.vendor_code,
                        watch.port_id,
                        watch.submitted_at,
                        watch.poll_seconds,
                        watch.max_days,
                        watch.polls + polls,
                        self._corrections,
                        self._view,
                    )
                )
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

    @workflow.signal(name=CARRIER_PUSHED)
    def carrier_pushed(self) -> None:
        """The carrier says the port changed: ask it now instead of at the next poll (its word is not taken
        as the new state; the poll is)."""
        self._pushed = True


@workflow.defn
class PortValidationWorkflow:
    """validate_portin (`portcheck-<request id>`): whether a number can come in, and from which carrier."""

    @workflow.run
    async def run(self, check: PortCheck) -> PortEligibility:
        return await workflow.execute_activity_method(
            PortingActivities.validate_port, check, **policies.lookup(check.budget_seconds)
        )
