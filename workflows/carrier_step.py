"""What a line's workflows share: the line's status as they move it (its row, its search attributes, the
`status` query) and a carrier step under decisions.md's retry budget, STUCK with its error when the budget is
spent until support's retry (or the line's own timer) sends it again. LineWorkflow runs the activation step,
PortInWorkflow the port submission."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Never, TypeVar

from temporalio import workflow
from temporalio.common import SearchAttributeUpdate
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.enrollment import EnrollmentActivities
    from models.failures import CARRIER_REJECTED, DATABASE_UNAVAILABLE
    from models.messages.enrollment import CarrierCall, LineProgress, LineState, Pacing, StuckState
    from models.statuses import LineStatus
    from workflows import policies
    from workflows.search_attributes import LINE_STATUS, MDN

T = TypeVar("T")
# A database that does not answer is waited for, never counted against the carrier's budget (issue 27).
DATABASE_PAUSES = (timedelta(seconds=2), timedelta(seconds=5), timedelta(seconds=15), timedelta(seconds=30))


class Rejected(Exception):
    """The carrier refused the step for good (a port that is not eligible): nothing support can retry."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LineTracker:
    """The line as its workflow moves it. `writes` False: the line is not this workflow's to move (a port into an
    ACTIVE line keeps the line ACTIVE with its number until the port completes); only the query follows."""

    def __init__(self, progress: LineProgress, *, writes: bool = True) -> None:
        self.progress = progress
        self.writes = writes
        self.attributes: list[SearchAttributeUpdate[str]] = []  # upserted with the next move (one command)

    async def move(
        self, status: LineStatus, *, error: str | None = None, saved: bool = False, **numbers: str | None
    ) -> None:
        """The line's new status: in the database (unless the step's own activity `saved` it), the search
        attributes and the `status` query."""
        if not self.writes:
            return
        current = self.progress
        if not saved:
            state = LineState(current.enrollment_id, status, error)
            await workflow.execute_local_activity_method(EnrollmentActivities.set_line_status, state, **policies.STORE)
        self.progress = LineProgress(
            current.enrollment_id,
            status,
            numbers.get("mdn") or current.mdn,
            numbers.get("msid") or current.msid,
            numbers.get("msl") or current.msl,
            error,
        )
        updates, self.attributes = [*self.attributes, LINE_STATUS.value_set(status)], []
        if numbers.get("mdn"):
            updates.append(MDN.value_set(str(numbers["mdn"])))
        workflow.upsert_search_attributes(updates)


class CarrierStep:
    """One carrier step of a line (`step`: "activate" or "port"), keyed `<workflow id>:<step>:<round>` as the order
    that tried it first keyed it. `continue_stuck` starts the workflow's next run, still stuck, when its history
    grows long (it never returns)."""

    def __init__(
        self,
        line: LineTracker,
        pacing: Pacing,
        *,
        step: str,
        stuck: StuckState | None,
        continue_stuck: Callable[[StuckState], Awaitable[Never]],
    ) -> None:
        self.line, self.pacing, self.step = line, pacing, step
        self.stuck = stuck
        self.zip_code = stuck.zip_code if stuck else None  # new_number_activation_with_zip_code's area
        self.retry_requested = False
        self._continue_stuck = continue_stuck

    def key(self) -> str:
        """Same key across retries of one attempt (a lost answer cannot make a second MDN); a new one only after
        the carrier said no, since it would repeat that "no" for the old key."""
        return step_key(workflow.info().workflow_id, self.step, self.stuck.key_round if self.stuck else 0)

    async def run(
        self, method: Callable[[Never, CarrierCall], Awaitable[T]], vendor_code: str, *, final_rejection: bool = False
    ) -> T:
        """The step's result; on failure the line waits STUCK for a retry, as many times as it takes. A step that
        starts stuck (the order's attempt was refused, or a new run of a stuck line) starts by waiting."""
        enrollment_id = self.line.progress.enrollment_id
        if self.stuck is not None:
            if self.line.progress.status != LineStatus.STUCK:  # its order (or earlier run) has not written it
                await self.line.move(LineStatus.STUCK, error=self.stuck.error)
            await self._wait_for_retry()
        pauses = iter(DATABASE_PAUSES)
        while True:
            call = CarrierCall(enrollment_id, vendor_code, self.key(), self.zip_code)
            try:
                return await workflow.execute_activity_method(
                    method, call, **policies.carrier(self.pacing.carrier_max_attempts)
                )
            except ActivityError as failure:
                cause = failure.cause
                kind = cause.type if isinstance(cause, ApplicationError) else None
                reason = cause.message if isinstance(cause, ApplicationError) else str(failure)
                if kind == DATABASE_UNAVAILABLE:  # our own database: wait for it, the carrier is not at fault
                    await workflow.sleep(next(pauses, DATABASE_PAUSES[-1]))
                    continue
                if kind == CARRIER_REJECTED and final_rejection:
                    raise Rejected(reason) from failure
                self.retry_requested = False  # before the move: a retry sent while it is saved must count
                since = self.stuck.since if self.stuck else workflow.now().isoformat()
                rounds = (self.stuck.key_round if self.stuck else 0) + (kind == CARRIER_REJECTED)
                self.stuck = StuckState(since, rounds, reason, self.zip_code)
                await self.line.move(LineStatus.STUCK, error=reason)
            await self._wait_for_retry()

    async def _wait_for_retry(self) -> None:
        """Support's retry, or the line's own every stuck_retry_minutes while its step has been stuck for less
        than stuck_retry_hours (decisions.md's retry budget); after that, support's retry only. A long history
        continues as new first."""
        assert self.stuck is not None
        await self._continue_if_long(self.stuck)
        since = datetime.fromisoformat(self.stuck.since)
        remaining = since + timedelta(hours=self.pacing.stuck_retry_hours) - workflow.now()
        if remaining <= timedelta(0):
            await workflow.wait_condition(lambda: self.retry_requested)
        else:  # a timeout is the line's own retry; the timer is durable, so a worker restart does not lose it
            with contextlib.suppress(TimeoutError):
                interval = timedelta(minutes=self.pacing.stuck_retry_minutes)
                await workflow.wait_condition(lambda: self.retry_requested, timeout=min(interval, remaining))
        by_support, self.retry_requested = self.retry_requested, False
        if by_support:  # support moved it to RETRYING (and logged its retry); the step's activity moves it on
            self.line.progress = replace(self.line.progress, status=LineStatus.RETRYING)
        else:  # the line's own retry: ACTIVATING, logged as Lineup's
            await self.line.move(LineStatus.ACTIVATING)

    async def _continue_if_long(self, stuck: StuckState) -> None:
        """A line stuck for long (many retries) starts a new run of itself, still stuck, before its history grows
        large; a retry already received is taken here first."""
        info = workflow.info()
        long = info.get_current_history_length() >= self.pacing.history_events
        if self.retry_requested or not (long or info.is_continue_as_new_suggested()):
            return
        await workflow.wait_condition(workflow.all_handlers_finished)  # their callers get their answers
        await self._continue_stuck(replace(stuck, error=self.line.progress.error or stuck.error))


def step_key(workflow_id: str, step: str, key_round: int) -> str:
    """A carrier step's idempotency key: the order's first attempt and the line's workflow use the same one."""
    return f"{workflow_id}:{step}:{key_round}"
