"""The enrollment domain's workflows. EnrollmentWorkflow (`enrollment-…`, one per create) tries each line's
carrier step at once within LINEUP_SYNC_WAIT_SECONDS and answers the create's update with that: the lines'
activations together, one local activity per attempt for all of them (two transactions whatever the number of
lines), and each port's submission in local activities of its own. A line its first try activated (or one already
ACTIVE, for a repeated order) is done there: its row is its record, the order's search attributes (`EnrollmentIds`,
`LineStatuses`, `Mdns`) its place in the Temporal UI, and no workflow of its own is started. Only a line with work
left goes on in a workflow of its own, started by the order: LineWorkflow (`line-<enrollment id>`) for a line
waiting for activation, still activating after the order's wait, or refused (STUCK), holding it until it is
active: its carrier step under decisions.md's retry budget, STUCK with its error until support's retry or its own
timer, the `activate` update for a line waiting for activation; PortInWorkflow (`port-<enrollment id>`,
workflows.porting) for a port, which shares this module's carrier step and line tracker. Also the domain's lookups
(line inquiry, the carrier list, an eSIM profile), its workflow ids and the search attributes operations staff
filter on (ids, states and numbers only, never PII)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Never, TypedDict, TypeVar

from temporalio import exceptions, workflow
from temporalio.common import (
    SearchAttributeKey,
    SearchAttributePair,
    SearchAttributeUpdate,
    TypedSearchAttributes,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    TimeoutType,
    WorkflowAlreadyStartedError,
)
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.enrollment import EnrollmentActivities
    from activities.porting import PortingActivities
    from models.enrollment.lines import (
        IN_FLIGHT,
        WORKER_STOPPED,
        Activation,
        ActivationType,
        CarrierCall,
        CarrierList,
        CarrierListQuery,
        EnrollmentOrder,
        EnrollmentResult,
        EsimAssigned,
        EsimRequest,
        FirstTries,
        InquiryRequest,
        LineInquiryAnswer,
        LinePlan,
        LineProgress,
        LineStart,
        LineState,
        LineStatus,
        Pacing,
        SimChange,
        StuckState,
    )
    from models.envelope import CARRIER_REJECTED, DATABASE_UNAVAILABLE, not_waiting_for_activation
    from models.porting import PortFinish, PortStart, PortStatus, PortSubmission, PortView
    from workflows import policies


def enrollment_workflow_id(parent_enrollment_id: str, enrollment_ids: list[str]) -> str:
    digest = hashlib.sha256(",".join(sorted(enrollment_ids)).encode()).hexdigest()[:10]
    return f"enrollment-{parent_enrollment_id}-{len(enrollment_ids)}l-{digest}"


def line_workflow_id(enrollment_id: str) -> str:
    return f"line-{enrollment_id}"


def port_workflow_id(enrollment_id: str) -> str:
    return f"port-{enrollment_id}"


def esim_workflow_id(enrollment_id: str) -> str:
    """One per line: two assign_esim at once find the same run, and the carrier one reservation."""
    return f"esim-{enrollment_id}"


def inquiry_workflow_id(enrollment_id: str, request_id: str) -> str:
    return f"inquiry-{enrollment_id}-{request_id}"


ENROLLMENT_ID = SearchAttributeKey.for_keyword("EnrollmentId")
PARENT_ENROLLMENT_ID = SearchAttributeKey.for_keyword("ParentEnrollmentId")
AGENT_ID = SearchAttributeKey.for_keyword("AgentId")
LINE_STATUS = SearchAttributeKey.for_keyword("LineStatus")
ACTIVATION_TYPE = SearchAttributeKey.for_keyword("ActivationType")
CARRIER = SearchAttributeKey.for_keyword("Carrier")
MDN = SearchAttributeKey.for_keyword("Mdn")  # the line's number once active (a ported number included)

# The order's, for its lines: a line its first try activated has no workflow of its own, so its order is where the
# Temporal UI finds it. Keyword lists match an element: `EnrollmentIds = "E1"` finds the order holding line E1.
# LineStatuses holds each line's status as the order left it twice over, alone (`LineStatuses = "STUCK"`) and with
# its line (`LineStatuses = "E1:ACTIVE"`); Mdns the numbers its first tries gave (`Mdns = "4045550100"`, as `Mdn`
# finds a line's own workflow). The dev server's SQLite store indexes three keyword lists at most.
ENROLLMENT_IDS = SearchAttributeKey.for_keyword_list("EnrollmentIds")
LINE_STATUSES = SearchAttributeKey.for_keyword_list("LineStatuses")
MDNS = SearchAttributeKey.for_keyword_list("Mdns")

ALL: tuple[SearchAttributeKey[str] | SearchAttributeKey[Sequence[str]], ...] = (
    ENROLLMENT_ID,
    PARENT_ENROLLMENT_ID,
    AGENT_ID,
    LINE_STATUS,
    ACTIVATION_TYPE,
    CARRIER,
    MDN,
    ENROLLMENT_IDS,
    LINE_STATUSES,
    MDNS,
)


def enrollment_search_attributes(order: EnrollmentOrder) -> TypedSearchAttributes:
    """What operations staff filter an enrollment by in the Temporal UI (whoever starts it: intake or sweep): its
    lines as intake stored them, until the order's first tries upsert their statuses."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(PARENT_ENROLLMENT_ID, order.parent_enrollment_id),
            SearchAttributePair(AGENT_ID, order.agent_id or ""),
            SearchAttributePair(ENROLLMENT_IDS, order.enrollment_ids),
            SearchAttributePair(LINE_STATUSES, line_statuses(order.lines)),
        ]
    )


def order_attributes(plans: list[LinePlan]) -> list[SearchAttributeUpdate[Sequence[str]]]:
    """The order's lines as its first tries left them: their statuses, and the numbers they were given."""
    mdns = [plan.mdn for plan in plans if plan.mdn]
    return [LINE_STATUSES.value_set(line_statuses(plans)), *([MDNS.value_set(mdns)] if mdns else [])]


def line_statuses(plans: Iterable[LinePlan]) -> list[str]:
    """LineStatuses' value: each status once, then each line's `<enrollment id>:<status>`."""
    plans = list(plans)
    alone = dict.fromkeys(str(plan.status) for plan in plans)
    return [*alone, *(f"{plan.enrollment_id}:{plan.status}" for plan in plans)]


def line_query(enrollment_id: str) -> str:
    """The visibility query that finds every workflow of a line: its order's and any of its own (a line, a port)."""
    return f'{ENROLLMENT_IDS.name} = "{enrollment_id}" OR {ENROLLMENT_ID.name} = "{enrollment_id}"'


def line_attributes(plan: LinePlan, *, parent_enrollment_id: str, agent_id: str | None) -> TypedSearchAttributes:
    """A line's workflow's attributes as it starts (LineWorkflow, or PortInWorkflow for a port)."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(ENROLLMENT_ID, plan.enrollment_id),
            SearchAttributePair(PARENT_ENROLLMENT_ID, parent_enrollment_id),
            SearchAttributePair(AGENT_ID, agent_id or ""),
            SearchAttributePair(ACTIVATION_TYPE, plan.activation_type),
            SearchAttributePair(CARRIER, plan.carrier or ""),
            SearchAttributePair(LINE_STATUS, plan.status),
            *([SearchAttributePair(MDN, plan.mdn)] if plan.mdn else []),
        ]
    )


@workflow.defn
class EnrollmentWorkflow:
    def __init__(self) -> None:
        self._lines: list[FirstTry] = []
        self._ready = False

    @workflow.run
    async def run(self, order: EnrollmentOrder) -> EnrollmentResult:
        # Intake gave every line its customer record; the order tries each line's carrier step at once: the
        # activations together in one local activity per attempt, each port's submission in its own.
        self._lines = [FirstTry(plan) for plan in order.lines]
        activating = [line for line in self._lines if _activates_now(line.plan)]
        others = [line for line in self._lines if line not in activating]
        await asyncio.gather(_activations(order, activating), *(_submission(order, line) for line in others))
        self._ready = True  # the update answers in this workflow task, with the upsert and the lines' starts
        workflow.upsert_search_attributes(order_attributes(self._result().lines))
        # A line the first try activated is done here (its row is its record): only a line with work left costs a
        # workflow of its own.
        await asyncio.gather(*(self._start_line(order, line) for line in self._lines if line.work_left))
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._result()

    async def _start_line(self, order: EnrollmentOrder, line: FirstTry) -> None:
        plan = line.plan
        attributes = line_attributes(plan, parent_enrollment_id=order.parent_enrollment_id, agent_id=order.agent_id)
        # A line outlives its order: support may still need to retry it.
        options = ChildOptions(
            search_attributes=attributes,
            parent_close_policy=ParentClosePolicy.ABANDON,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            task_timeout=policies.WORKFLOW_TASK_TIMEOUT,
        )
        if plan.activation_type == ActivationType.PORTIN:
            # A port the carrier refused at submission: its workflow records the refusal and ends.
            refused = PortView(PortStatus.REJECTED, carrier_response=line.stuck.error) if line.stuck else None
            port = PortStart(
                plan.enrollment_id, order.vendor_code, order.pacing, submitted=line.submitted, view=refused
            )
            # By its type's name: the port's workflow (workflows.porting) builds on this module's carrier step.
            with contextlib.suppress(WorkflowAlreadyStartedError):  # the API started it first (a port added at once)
                await workflow.start_child_workflow(
                    "PortInWorkflow", port, id=port_workflow_id(plan.enrollment_id), **options
                )
            return
        start = LineStart(
            plan,
            order.order_id,
            order.parent_enrollment_id,
            order.vendor_code,
            order.agent_id,
            order.pacing,
            stuck=line.stuck,
        )
        # The API may have started it first, for an activation or a port asked for at once (api.enrollment).
        with contextlib.suppress(WorkflowAlreadyStartedError):
            await workflow.start_child_workflow(
                LineWorkflow.run, start, id=line_workflow_id(plan.enrollment_id), **options
            )

    @workflow.update
    async def customers(self) -> EnrollmentResult:
        """Answers once every line has its customer record and its carrier step's first try."""
        await workflow.wait_condition(lambda: self._ready)
        return self._result()

    @workflow.query
    def status(self) -> EnrollmentResult:
        return self._result()

    def _result(self) -> EnrollmentResult:
        return EnrollmentResult([line.plan for line in self._lines])


@dataclass
class FirstTry:
    """One line's carrier step as the order tried it: the plan as it left it, and what its workflow takes on."""

    plan: LinePlan
    stuck: StuckState | None = None
    submitted: PortSubmission | None = None

    @property
    def work_left(self) -> bool:
        """Waiting for activation, still activating, stuck, or porting: anything but ACTIVE goes on in a workflow
        of its own (a port into a line, even a refused one, in its PortInWorkflow, which records it)."""
        return self.plan.status != LineStatus.ACTIVE


class ChildOptions(TypedDict):
    search_attributes: TypedSearchAttributes
    parent_close_policy: ParentClosePolicy
    id_reuse_policy: WorkflowIDReusePolicy
    task_timeout: timedelta


def _activates_now(plan: LinePlan) -> bool:
    """A line the order activates now: not one waiting for activation, already active, or porting in."""
    return not (
        plan.activation_later or plan.status == LineStatus.ACTIVE or plan.activation_type == ActivationType.PORTIN
    )


async def _activations(order: EnrollmentOrder, lines: list[FirstTry]) -> None:
    """The lines' activations, tried together in one local activity per attempt within the order's wait (paced by
    timers between attempts), each line under the key its own workflow would use: an attempt's refusal leaves its
    line STUCK, an activation ACTIVE, and the lines neither are tried again. A slow or absent carrier leaves a line
    ACTIVATING: its own workflow goes on with the same key, so the carrier never makes two lines of one."""
    pending = {line.plan.enrollment_id: line for line in lines}
    deadline = workflow.now() + timedelta(seconds=order.pacing.sync_wait_seconds)
    for pause in (*policies.FIRST_TRY_PAUSES, None):
        remaining = deadline - workflow.now()
        if not pending or remaining < policies.SHORTEST_TRY:  # a busy worker woke past the wait
            break
        keys = {eid: step_key(line_workflow_id(eid), "activate", 0) for eid in pending}
        tries = FirstTries([CarrierCall(eid, order.vendor_code, key) for eid, key in keys.items()])
        try:
            outcomes = await workflow.execute_local_activity_method(
                EnrollmentActivities.activate_all_and_record, tries, **policies.first_try(remaining)
            )
        # The database away or the attempt's time up: every line is tried again. A local activity may fail with its
        # error itself, not wrapped in an ActivityError.
        except (ActivityError, ApplicationError):
            outcomes = []
        refused = []
        for outcome in outcomes:
            if done := outcome.activated:
                line = pending.pop(outcome.enrollment_id)
                line.plan = replace(line.plan, status=LineStatus.ACTIVE, mdn=done.mdn, msid=done.msid, msl=done.msl)
            elif outcome.refused is not None:
                refused.append(_refused(order, pending.pop(outcome.enrollment_id), outcome.refused, porting=False))
        await asyncio.gather(*refused)
        if not pending or pause is None or deadline - workflow.now() <= pause:
            break
        await workflow.sleep(pause)
    for line in pending.values():
        line.plan = replace(line.plan, status=LineStatus.ACTIVATING)


async def _submission(order: EnrollmentOrder, line: FirstTry) -> None:
    """A port's submission, tried in local activities of its own within the order's wait (paced by timers between
    attempts); a line waiting for activation (or already active, for a repeated order) has no first try. A slow or
    absent carrier leaves the port to its own workflow, with the same key."""
    plan = line.plan
    if plan.activation_later or plan.status == LineStatus.ACTIVE:
        return
    call = CarrierCall(plan.enrollment_id, order.vendor_code, step_key(port_workflow_id(plan.enrollment_id), "port", 0))
    deadline = workflow.now() + timedelta(seconds=order.pacing.sync_wait_seconds)
    for pause in (*policies.FIRST_TRY_PAUSES, None):
        remaining = deadline - workflow.now()
        if remaining < policies.SHORTEST_TRY:  # a busy worker woke past the wait: the line's workflow goes on
            break
        try:
            line.submitted = await workflow.execute_local_activity_method(
                PortingActivities.submit_and_record, call, **policies.first_try(remaining)
            )
            line.plan = replace(plan, status=LineStatus.PORT_PENDING)
            return
        # A local activity may fail with its error itself, not wrapped in an ActivityError.
        except (ActivityError, ApplicationError) as failure:
            cause = failure.cause if isinstance(failure, ActivityError) else failure
            if isinstance(cause, ApplicationError) and cause.type == CARRIER_REJECTED:
                await _refused(order, line, cause.message, porting=True)
                return
        if pause is None or deadline - workflow.now() <= pause:
            break
        await workflow.sleep(pause)
    line.plan = replace(plan, status=LineStatus.ACTIVATING)


async def _refused(order: EnrollmentOrder, line: FirstTry, reason: str, *, porting: bool) -> FirstTry:
    """A refusal is recorded before the answer, so the line's row says what the channel hears."""
    plan = line.plan
    line.stuck = StuckState(workflow.now().isoformat(), 1, reason)
    if porting:  # a port the carrier will not take: rejected for good
        line.plan = replace(plan, status=LineStatus.PORT_REJECTED)
        refusal = PortView(PortStatus.REJECTED, carrier_response=reason)
        finish = PortFinish(plan.enrollment_id, order.vendor_code, refusal)
        await workflow.execute_local_activity_method(PortingActivities.finish_port, finish, **policies.STORE)
    else:
        line.plan = replace(plan, status=LineStatus.STUCK)
        stuck = LineState(plan.enrollment_id, LineStatus.STUCK, reason)
        await workflow.execute_local_activity_method(EnrollmentActivities.set_line_status, stuck, **policies.STORE)
    return line


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
                self._line.attributes.append(ACTIVATION_TYPE.value_set(ActivationType.PORTIN))
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
        given = {name: number for name, number in numbers.items() if number}  # one not given: the line keeps its own
        self.progress = replace(current, status=status, error=error, **given)
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
                reason = stuck_reason(failure)
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


def stuck_reason(failure: ActivityError) -> str:
    """What a stuck line's error tells support: the carrier's (or our) message; an attempt that timed out with no
    answer (its worker killed or restarted under it) in plain words, not the SDK's "Activity task timed out"."""
    cause = failure.cause
    if isinstance(cause, ApplicationError):
        return cause.message
    if isinstance(cause, exceptions.TimeoutError) and cause.type in (TimeoutType.START_TO_CLOSE, TimeoutType.HEARTBEAT):
        return WORKER_STOPPED
    return str(failure)


def step_key(workflow_id: str, step: str, key_round: int) -> str:
    """A carrier step's idempotency key: the order's first attempt and the line's workflow use the same one."""
    return f"{workflow_id}:{step}:{key_round}"


class StartOptions(TypedDict):
    id: str
    search_attributes: TypedSearchAttributes
    task_timeout: timedelta
    id_reuse_policy: WorkflowIDReusePolicy


def start_options(order: EnrollmentOrder) -> StartOptions:
    """The options intake would have started the order with, under the same id."""
    return StartOptions(
        id=order.order_id,
        search_attributes=enrollment_search_attributes(order),
        task_timeout=policies.WORKFLOW_TASK_TIMEOUT,
        # A run that failed or was terminated may start again; one that completed has done its work.
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    )


@workflow.defn
class LineInquiryWorkflow:
    @workflow.run
    async def run(self, request: InquiryRequest) -> LineInquiryAnswer:
        return await workflow.execute_activity_method(
            EnrollmentActivities.line_inquiry, request, **policies.lookup(request.budget_seconds)
        )


@workflow.defn
class CarrierListWorkflow:
    @workflow.run
    async def run(self, query: CarrierListQuery) -> CarrierList:
        return await workflow.execute_activity_method(
            EnrollmentActivities.carriers, query.vendor_code, **policies.lookup(query.budget_seconds)
        )


@workflow.defn
class EsimAssignmentWorkflow:
    @workflow.run
    async def run(self, request: EsimRequest) -> EsimAssigned:
        return await workflow.execute_activity_method(
            EnrollmentActivities.assign_esim_profile, request, **policies.lookup(request.budget_seconds)
        )
