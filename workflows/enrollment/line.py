"""LineWorkflow: one line from customer record to active (or port pending). A carrier step that keeps
failing, or that the carrier rejects, parks the line in STUCK until support sends `retry` (or its own timer
fires); a line stuck long enough to grow a large history continues as new, still stuck. A line waiting for
activation may instead be ported in (`port_in` update, create_portin_v2…): it then runs as a PORTIN line."""

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
    from activities.porting import PortingActivities
    from models.failures import CARRIER_REJECTED
    from models.messages.enrollment import (
        LINE_PROGRESS_SIGNAL,
        Activation,
        ActivationRecord,
        CarrierCall,
        LineActivated,
        LineProgress,
        LineStart,
        LineState,
        PortRecord,
        SimChange,
        StuckResume,
        straight_to_the_carrier,
    )
    from models.messages.porting import PortRequest, PortStarted, PortView, PortWatch
    from models.statuses import IN_FLIGHT, LineStatus, PortStatus
    from workflows import policies
    from workflows.ids import port_workflow_id
    from workflows.porting import PortStatusWorkflow
    from workflows.search_attributes import ACTIVATION_TYPE, LINE_STATUS, MDN

T = TypeVar("T")
# The states in which a port requested after creation has its answer (else it waits for the carrier).
PORT_ANSWERED = frozenset({LineStatus.STUCK, LineStatus.PORT_REJECTED, LineStatus.PORT_PENDING, LineStatus.ACTIVE})
# The status a line ends with reaches the enrollment as the child's result, not by a signal as well.
FINAL_STATUS_BY_RESULT = "final-status-by-result"


class PortRejected(Exception):
    """The carrier refused the port itself (e.g. the number is not eligible): nothing support can retry."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@workflow.defn
class LineWorkflow:
    def __init__(self) -> None:
        self._progress: LineProgress | None = None
        self._retry_requested = False
        self._activation: Activation | None = None
        self._resuming = False  # the first wait of a resumed run comes before any carrier call
        self._key_round = 0  # bumped after a carrier rejection: the corrected request needs a new key
        self._port_requested = False  # create_portin_v2…: the line waiting for activation is ported in instead
        self._port_id: str | None = None
        self._number_zip: str | None = None  # new_number_activation_with_zip_code's area
        self._stuck_since: datetime | None = None  # set when a stuck line's new run resumes its step
        self._step = "activate"
        self._attributes: list[SearchAttributeUpdate[str]] = []  # upserted with the next status (one command)

    @workflow.run
    async def run(self, start: LineStart) -> LineProgress:
        self._start = start
        plan = start.plan
        self._progress = LineProgress(plan.enrollment_id, plan.status, plan.mdn, plan.msid, plan.msl)
        if plan.status == LineStatus.ACTIVE:  # a repeated run of a line that is already done
            return self._progress
        if start.resume is not None:  # a stuck line's new run: straight back to waiting for its retry
            self._resumed(start.resume)
        elif plan.activation_later:
            await self._move(LineStatus.WAITING_ACTIVATION)
            await workflow.wait_condition(lambda: self._activation is not None or self._port_requested)
            await self._change_sim()
        if self._in_one_step() and plan.activation_type != "PORTIN":
            done = await self._carrier_step("activate", EnrollmentActivities.activate_and_record, saved=True)
            return await self._active(done)
        if plan.enrollment_type == "SHIPMENT" and start.resume is None and not self._in_one_step():
            await workflow.execute_local_activity_method(
                EnrollmentActivities.record_shipment, plan.enrollment_id, **policies.STORE
            )
            await self._move(LineStatus.SHIPPING, saved=True)
        if plan.activation_type == "PORTIN" or self._port_requested:
            activated = await self._port_in()
            if activated is None:
                return self._progress
        else:
            activated = await self._carrier_step("activate", EnrollmentActivities.activate_line)
        record_activation = ActivationRecord(plan.enrollment_id, activated)
        await workflow.execute_local_activity_method(
            EnrollmentActivities.record_activation, record_activation, **policies.STORE
        )
        return await self._active(activated)

    async def _active(self, done: LineActivated) -> LineProgress:
        await self._move(LineStatus.ACTIVE, saved=True, final=True, mdn=done.mdn, msid=done.msid, msl=done.msl)
        assert self._progress is not None
        return self._progress

    def _in_one_step(self) -> bool:
        """A new activation started since issue 20, neither waiting nor resumed: its activity writes the
        shipment, ACTIVATING (the search attribute says so from the start) and the activation itself."""
        start = self._start
        return start.one_step and straight_to_the_carrier(start.plan) and start.resume is None

    async def _port_in(self) -> LineActivated | None:
        """Submits the port and follows it to its end: the ported number becomes the line's MDN."""
        plan, one_step = self._start.plan, self._in_one_step()
        submit = PortingActivities.submit_and_record if one_step else PortingActivities.submit_port
        try:
            submitted = await self._carrier_step("port", submit, rejection_is_final=True, saved=one_step)
        except PortRejected as rejected:
            view = PortView(PortStatus.REJECTED, carrier_response=rejected.reason)
            await workflow.execute_local_activity_method(
                PortingActivities.record_port_status, args=[plan.enrollment_id, view], **policies.STORE
            )
            await self._move(LineStatus.PORT_REJECTED, error=rejected.reason, final=True)
            return None
        self._port_id = submitted.port_id
        if not one_step:
            record = PortRecord(plan.enrollment_id, submitted.port_id, submitted.status)
            await workflow.execute_local_activity_method(
                PortingActivities.record_port_submitted, record, **policies.STORE
            )
        await self._move(LineStatus.PORT_PENDING, saved=one_step)
        # A one-step line's port polls by retries from the start: no patch marker to choose it.
        watch = PortWatch(
            plan.enrollment_id,
            self._start.vendor_code,
            submitted.port_id,
            workflow.now().isoformat(),
            self._start.pacing.port_poll_seconds,
            self._start.pacing.port_max_days,
            by_retry=True if one_step else None,
        )
        final = await workflow.execute_child_workflow(
            PortStatusWorkflow.run,
            watch,
            id=port_workflow_id(plan.enrollment_id),
            search_attributes=workflow.info().typed_search_attributes,
        )
        if final.status != PortStatus.COMPLETED or final.mdn is None:
            await self._move(
                LineStatus.after_port(PortStatus(final.status)),
                error=final.resolution_description or final.carrier_response,
                final=True,
            )
            return None
        return LineActivated(final.mdn, final.msid or "", final.msl or "")

    async def _carrier_step(
        self,
        step: str,
        method: Callable[[Never, CarrierCall], Awaitable[T]],
        *,
        rejection_is_final: bool = False,
        saved: bool = False,
    ) -> T:
        """Runs a carrier call under the carrier retry budget; on failure parks the line in STUCK and
        waits for support's retry, as many times as it takes (a final rejection raises PortRejected). A run
        that resumes a stuck step starts by waiting. `saved`: the step's activity writes ACTIVATING itself."""
        self._step, stuck_since = step, self._stuck_since
        if stuck_since is None and saved:
            assert self._progress is not None
            self._progress = replace(self._progress, status=LineStatus.ACTIVATING)
        elif stuck_since is None:
            await self._move(LineStatus.ACTIVATING)
        while True:
            if stuck_since is None or not self._resuming:
                call = CarrierCall(
                    self._start.plan.enrollment_id, self._start.vendor_code, self._key(step), self._number_zip
                )
                try:
                    return await workflow.execute_activity_method(
                        method, call, **policies.carrier(self._start.pacing.carrier_max_attempts)
                    )
                except ActivityError as failure:
                    cause = failure.cause
                    reason = cause.message if isinstance(cause, ApplicationError) else str(failure)
                    rejected = isinstance(cause, ApplicationError) and cause.type == CARRIER_REJECTED
                    if rejected and rejection_is_final:
                        raise PortRejected(reason) from failure
                    self._retry_requested = False  # before the move: a retry sent while it is saved must count
                    await self._move(LineStatus.STUCK, error=reason)
                    stuck_since = stuck_since or workflow.now()
                    # The next key is only used after the retry: bumped now, a new run carries it.
                    self._key_round += rejected
            self._resuming = False
            await self._continue_as_new_if_long(stuck_since)
            await self._wait_for_retry(stuck_since)
            await self._move(LineStatus.ACTIVATING)

    async def _wait_for_retry(self, stuck_since: datetime) -> None:
        """Support's retry, or the line's own every stuck_retry_minutes while its step has been stuck for less
        than stuck_retry_hours (decisions.md's retry budget); after that, support's retry only."""
        pacing = self._start.pacing
        deadline = stuck_since + timedelta(hours=pacing.stuck_retry_hours)
        if (remaining := deadline - workflow.now()) <= timedelta(0):
            await workflow.wait_condition(lambda: self._retry_requested)
            return
        # A timeout is the line's own retry; the timer is durable, so a worker restart does not lose it.
        with contextlib.suppress(TimeoutError):
            interval = timedelta(minutes=pacing.stuck_retry_minutes)
            await workflow.wait_condition(lambda: self._retry_requested, timeout=min(interval, remaining))

    async def _continue_as_new_if_long(self, stuck_since: datetime) -> None:
        """A line stuck for long (many retries) starts a new run of itself, still stuck, before its history
        grows large; a retry already received is taken here first."""
        info = workflow.info()
        long = info.get_current_history_length() >= self._start.pacing.history_events
        if self._retry_requested or not (long or info.is_continue_as_new_suggested()):
            return
        await workflow.wait_condition(workflow.all_handlers_finished)  # their callers get their answers
        assert self._progress is not None
        resume = StuckResume(
            self._step,
            self._key_round,
            stuck_since.isoformat(),
            self._port_requested,
            self._number_zip,
            self._progress.error,
        )
        plan = replace(self._start.plan, status=LineStatus.STUCK)
        workflow.continue_as_new(
            replace(self._start, plan=plan, resume=resume), search_attributes=info.typed_search_attributes
        )

    def _resumed(self, resume: StuckResume) -> None:
        assert self._progress is not None
        self._resuming, self._step, self._key_round = True, resume.step, resume.key_round
        self._port_requested, self._number_zip = resume.port_requested, resume.number_zip
        self._stuck_since = datetime.fromisoformat(resume.stuck_since)
        self._progress = replace(self._progress, error=resume.error)

    def _key(self, step: str) -> str:
        # Same key across retries of one attempt (a lost answer cannot make a second MDN); a new one only
        # after the carrier said no, since it would repeat that "no" for the old key.
        return f"{workflow.info().workflow_id}:{step}:{self._key_round}"

    async def _move(
        self, status: LineStatus, *, error: str | None = None, saved: bool = False, final: bool = False, **numbers: str
    ) -> None:
        """The line's new status, in the database (unless the step's own write `saved` it), the search
        attributes, the `status` query and, once settled, the enrollment (a `final` one, that the line ends
        with, by the line's result)."""
        assert self._progress is not None
        enrollment_id = self._progress.enrollment_id
        if not saved:
            await workflow.execute_local_activity_method(
                EnrollmentActivities.set_line_status, LineState(enrollment_id, status, error), **policies.STORE
            )
        current = self._progress
        self._progress = LineProgress(
            enrollment_id,
            status,
            numbers.get("mdn", current.mdn),
            numbers.get("msid", current.msid),
            numbers.get("msl", current.msl),
            error,
        )
        updates = [*self._attributes, LINE_STATUS.value_set(status)]
        self._attributes = []
        if "mdn" in numbers:
            updates.append(MDN.value_set(numbers["mdn"]))
        workflow.upsert_search_attributes(updates)
        parent = workflow.info().parent
        # The enrollment waits only for settled lines; in-flight steps would just cost it workflow tasks.
        tells_parent = status not in (LineStatus.SHIPPING, LineStatus.ACTIVATING)
        # A one-step line is new code by its input: it needs no marker to know its result carries the status.
        by_result = final and (self._start.one_step or workflow.patched(FINAL_STATUS_BY_RESULT))
        if parent is not None and tells_parent and not by_result:
            try:
                await workflow.get_external_workflow_handle(parent.workflow_id).signal(
                    LINE_PROGRESS_SIGNAL, self._progress
                )
            except Exception:  # noqa: BLE001 — a closed enrollment no longer listens; the line goes on
                workflow.logger.warning("enrollment did not take the progress signal")

    @workflow.signal
    def retry(self) -> None:
        """Support asks a STUCK line to try its failed step again."""
        self._retry_requested = True

    @workflow.update
    async def activate(self, activation: Activation) -> LineProgress:
        """activate_line: activates a line enrolled with activation_later=Y; answers once the carrier has (or
        after the caller's wait, with the line still activating)."""
        self._activation = activation
        with contextlib.suppress(TimeoutError):
            await workflow.wait_condition(self._activation_settled, timeout=activation.wait_seconds)
        assert self._progress is not None
        return self._progress

    @activate.validator
    def _only_while_waiting(self, activation: Activation) -> None:
        """Refused before it reaches history: a line in any other state (or already asked) is not activated."""
        self._refuse_unless_waiting()

    def _refuse_unless_waiting(self) -> None:
        status = self._progress.status if self._progress else LineStatus.RECEIVED
        if status != LineStatus.WAITING_ACTIVATION or self._activation is not None or self._port_requested:
            shown = "porting" if self._port_requested else "activating" if self._activation else status
            raise ValueError(f"Line is not waiting for activation ({shown})")

    @workflow.update
    async def port_in(self, request: PortRequest) -> PortStarted:
        """create_portin_v2…: the line waiting for activation is ported in instead (its port order already
        stored); answers once the carrier took the port (its port request number), refused it, or the line
        got stuck submitting it. No timer: the caller bounds its own wait."""
        self._port_requested = True
        self._attributes.append(ACTIVATION_TYPE.value_set("PORTIN"))
        await workflow.wait_condition(self._port_answered)
        assert self._progress is not None
        return PortStarted(self._progress.status, self._port_id, self._progress.error)

    @port_in.validator
    def _port_only_while_waiting(self, request: PortRequest) -> None:
        """Refused before it reaches history: only a line still waiting for activation can be ported in."""
        self._refuse_unless_waiting()

    def _port_answered(self) -> bool:
        assert self._progress is not None
        return self._progress.status in PORT_ANSWERED

    def _activation_settled(self) -> bool:
        assert self._progress is not None
        return self._progress.status not in IN_FLIGHT and self._progress.status != LineStatus.WAITING_ACTIVATION

    async def _change_sim(self) -> None:
        """A SIM sent with activate_line replaces the attached one before the carrier sees the line."""
        activation = self._activation
        if activation is not None:
            self._number_zip = activation.zip_code
        if activation is not None and (activation.esn or activation.iccid):
            change = SimChange(self._start.plan.enrollment_id, activation.esn, activation.iccid)
            await workflow.execute_local_activity_method(EnrollmentActivities.change_sim, change, **policies.STORE)

    @workflow.query
    def status(self) -> LineProgress | None:
        return self._progress
