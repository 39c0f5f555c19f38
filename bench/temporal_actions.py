"""T8: Temporal actions (issue 20, target 4), counted by bench.actions from the histories of the bench's own
runs on the stack — the enrollments T2 and T3 made, T4's lookups, T5's polled ports — plus what T8 runs itself
where no other scenario does: PORTIN lines followed to completion, line inquiries, and one of each other kind.
Printed per NEWACTIVATION line (its share of the EnrollmentWorkflow, and its LineWorkflow when its first try left
it work: one its order activated has none), per PORTIN line to completion (its PortInWorkflow and the same
share), per port poll, per lookup — actions, and workflow tasks per line; and each workflow's history size, for
the capacity model."""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError

from bench import actions, bodies
from bench.actions import Actions
from bench.client import SUCCESS, ApiError, Channel, describe
from bench.context import Context
from bench.runs import EnrollmentRun
from bench.scenarios import activate_one, lookup_round
from bench.stats import Figure, Goal

SAMPLE = 60  # groups counted per kind at most: counts repeat from one run to the next
MOST_RUNS = 100  # continue-as-new runs followed back per workflow
OWN = 2  # runs of each kind T8 makes itself
SETTLE_S = 90.0  # how long a workflow may take to close before its history is read anyway
# Issue 20 target 4: a third fewer actions than before it, as `make bench` counted them on 2026-11-24 01:23 (git
# 06288e1, docs/capacity.md of then): not this run (the workflows that made them are gone), so said so.
BEFORE = {"newactivation_1": 12.0, "portin": 32.0, "poll": 3.2, "device": 2.0, "nlad": 3.0, "inquiry": 2.0}
BEFORE_RUN = "bench-20261124T012336Z, git 06288e1"
CUT = 2 / 3


@dataclass
class Fetched:
    """One workflow: every run's history (oldest first) as JSON, and the size Temporal stores for them."""

    runs: list[dict[str, Any]]
    bytes: int
    events: int

    @property
    def actions(self) -> Actions:
        return actions.count_all(self.runs)

    @property
    def polls(self) -> int:
        return sum(actions.polls(run) for run in self.runs)

    @property
    def workflow_tasks(self) -> int:
        return sum(actions.workflow_tasks(run) for run in self.runs)

    @property
    def workflow_type(self) -> str:
        return actions.workflow_type(self.runs[0]) if self.runs else "?"


async def settle(client: Client, workflow_id: str) -> bool:
    """Waits for the workflow to close (its last run); False when it was still running after SETTLE_S."""
    try:
        await asyncio.wait_for(client.get_workflow_handle(workflow_id).result(), SETTLE_S)
    except TimeoutError:
        return False
    except Exception:  # noqa: BLE001 — failed or terminated is closed too; a missing one shows when fetched
        return True
    return True


async def fetch(client: Client, workflow_id: str) -> Fetched | None:
    """Every run of the workflow, from the latest back along continue-as-new; None if it does not exist."""
    found: list[dict[str, Any]] = []
    size, events, run_id = 0, 0, ""
    for _ in range(MOST_RUNS):
        try:
            history = await client.get_workflow_handle(workflow_id, run_id=run_id or None).fetch_history()
        except RPCError:
            return Fetched(found, size, events) if found else None
        found.insert(0, history.to_json_dict())
        size += sum(event.ByteSize() for event in history.events)
        events += len(history.events)
        run_id = history.events[0].workflow_execution_started_event_attributes.continued_execution_run_id
        if not run_id:
            break
    return Fetched(found, size, events)


@dataclass
class Tally:
    """Actions per unit (line, poll, lookup) of each group counted, and what they were made of."""

    per_unit: list[float] = field(default_factory=list)
    summed: Actions = field(default_factory=Actions)
    units: int = 0
    missing: int = 0
    open: int = 0
    tasks_per_unit: list[float] = field(default_factory=list)  # workflow tasks, as per_unit counts actions

    def add(self, parts: Iterable[Fetched], units: int) -> None:
        parts = list(parts)
        total = sum((part.actions for part in parts), Actions())
        self.per_unit.append(total.total / units)
        self.tasks_per_unit.append(sum(part.workflow_tasks for part in parts) / units)
        self.summed, self.units = self.summed + total, self.units + units


# The workflows whose histories are measured, by the part each plays (the figure's key: stable when a workflow
# type is renamed; its label names the type the histories show).
ROLES = {
    "enrollment": "the order", "line_newactivation": "a NEWACTIVATION line",
    "line_portin": "a PORTIN line, to completion", "device": "lookup: device", "inquiry": "lookup: inquiry",
    "nlad": "lookup: NLAD",
}  # fmt: skip


@dataclass
class Sizes:
    """History bytes and events per role (bench.temporal_actions.ROLES), and the workflow types seen in it."""

    found: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    types: dict[str, set[str]] = field(default_factory=dict)

    def add(self, role: str, fetched: Fetched) -> None:
        self.found.setdefault(role, []).append((fetched.bytes, fetched.events))
        self.types.setdefault(role, set()).add(fetched.workflow_type)


async def enrollment_tally(client: Client, runs: list[EnrollmentRun], sizes: Sizes, ports: Tally) -> Tally:
    """Per line: the enrollment's workflow and its lines' own, divided by its lines. A NEWACTIVATION line its
    order's first try activated has no workflow of its own (issue 36); a PORTIN line's workflow is its port's
    too: its polls are counted in `ports`."""
    tally = Tally()
    for run in runs[:SAMPLE]:
        tally.open += not await settle(client, run.workflow_id)
        for line_id in run.line_ids:  # a line's workflow closes after its order's
            tally.open += not await settle(client, line_id)
        enrollment = await fetch(client, run.workflow_id)
        lines = [await fetch(client, wid) for wid in run.line_ids]
        if enrollment is None or (run.porting and any(line is None for line in lines)):
            tally.missing += 1
            continue
        found = [line for line in lines if line is not None]
        tally.add([enrollment, *found], run.lines)
        sizes.add("enrollment", enrollment)
        for line in found:
            sizes.add(f"line_{run.activation_type.lower()}", line)
            if run.porting:
                ports.add([line], max(1, line.polls))
    return tally


async def plain_tally(client: Client, workflow_ids: list[str], sizes: Sizes, name: str) -> Tally:
    tally = Tally()
    for workflow_id in workflow_ids[:SAMPLE]:
        tally.open += not await settle(client, workflow_id)
        fetched = await fetch(client, workflow_id)
        if fetched is None:
            tally.missing += 1
            continue
        tally.add([fetched], 1)
        sizes.add(name, fetched)
    return tally


async def polled_tally(client: Client, workflow_ids: list[str], attempts: dict[str, int]) -> Tally:
    """T5's round: ports terminated after their poll, so not waited for. A port polling by retries had its
    watch_port pending: its attempts (read by T5 before ending it) are its polls and, but the first, retries."""
    tally = Tally()
    for workflow_id in ([w for w in workflow_ids if w in attempts] or workflow_ids)[:SAMPLE]:
        fetched = await fetch(client, workflow_id)
        if fetched is None or not fetched.polls:
            tally.missing += 1
            continue
        done = attempts.get(workflow_id)
        if done is None:
            tally.add([fetched], fetched.polls)
            continue
        total = fetched.actions + Actions(retries=max(0, done - 1))
        tally.per_unit.append(total.total / max(1, fetched.polls - 1 + done))
        tally.summed, tally.units = tally.summed + total, tally.units + max(1, fetched.polls - 1 + done)
    return tally


def breakdown(tally: Tally) -> dict[str, float]:
    """Each kind of action per unit (averaged), as the figure's note and extra give it."""
    return {name: round(count / tally.units, 2) for name, count in tally.summed.as_dict().items() if count}


def tally_figure(ctx: Context, name: str, what: str, tally: Tally, note: str = "") -> Figure:
    per_unit = tally.per_unit
    value = statistics.median(per_unit) if per_unit else None
    parts = breakdown(tally) if tally.units else {}
    said = ", ".join(f"{kind} {count:g}" for kind, count in parts.items() if kind not in ("total", "heartbeating"))
    extra_note = [
        f"{len(per_unit)} counted (min {min(per_unit):g}, max {max(per_unit):g}); per unit: {said}" if per_unit else "",
        f"{parts['heartbeating']:g} heartbeating activity attempts per unit (their heartbeats are billable, not in a "
        "history, not counted)"
        if parts.get("heartbeating")
        else "",
        f"{tally.missing} not found" if tally.missing else "",
        f"{tally.open} still running when read" if tally.open else "",
        note,
    ]
    return Figure(
        ctx.key("T8", name),
        "T8",
        f"{ctx.db}: Temporal actions per {what}",
        "count",
        value=value,
        count=len(per_unit),
        errors=tally.missing,
        note="; ".join(part for part in extra_note if part),
        extra={
            "per_unit": parts,
            "units": tally.units,
            "groups": len(per_unit),
            "mean": round(tally.summed.total / tally.units, 3) if tally.units else None,
        },
    )


def tasks_figure(ctx: Context, name: str, what: str, tally: Tally) -> Figure:
    """Workflow tasks per unit, from the same histories as the unit's actions."""
    found = tally.tasks_per_unit
    return Figure(
        ctx.key("T8", f"tasks_{name}"),
        "T8",
        f"{ctx.db}: workflow tasks per {what}",
        "count",
        value=statistics.median(found) if found else None,
        count=len(found),
        note=f"{len(found)} counted (min {min(found):g}, max {max(found):g}); WORKFLOW_TASK_STARTED in every run's "
        "history of the unit's workflows"
        if found
        else "",
        extra={"mean": round(statistics.fmean(found), 3) if found else None},
    )


def poll_figure(ctx: Context, name: str, what: str, tally: Tally) -> Figure:
    """All of the port workflows' actions over all their polls; `marginal` leaves each one's first start out."""
    figure = tally_figure(ctx, name, what, tally)
    if tally.units:
        figure.value = tally.summed.total / tally.units
        marginal = (tally.summed.total - len(tally.per_unit)) / tally.units
        figure.extra["marginal"] = round(marginal, 3)
        figure.note = f"{tally.units} polls; {marginal:.2f} per poll without each workflow's start; " + figure.note
    return figure


def size_figures(ctx: Context, sizes: Sizes) -> list[Figure]:
    figures = []
    for role, found in sorted(sizes.found.items()):
        size, events = statistics.median(b for b, _ in found), statistics.median(e for _, e in found)
        types = ", ".join(sorted(sizes.types.get(role, set())))
        figures.append(
            Figure(
                ctx.key("T8", f"history_{role}"),
                "T8",
                f"{ctx.db}: history bytes, {ROLES.get(role, role)}: {types} (median)",
                "count",
                value=size,
                count=len(found),
                note=f"{events:g} events (median)",
                extra={"events": events, "bytes_max": max(b for b, _ in found), "workflow_type": types},
            )
        )
    return figures


async def portin_one(ctx: Context, channel: Channel) -> None:
    enrollment_id = await channel.enrollment_id()
    created = await channel.create([enrollment_id], portin=True)
    ctx.runs.enrollment([enrollment_id], "PORTIN")
    if created.answer.get("msg_code") != SUCCESS:
        raise ApiError(f"PORTIN create answered {describe(created.answer)}")


async def own_runs(ctx: Context) -> None:
    """What no other scenario runs (PORTIN lines to completion, line inquiries), and OWN of each other kind."""
    channel = Channel(ctx.http)
    before = len(ctx.runs.enrollments)
    for _ in range(OWN):
        await activate_one(channel, ctx.runs)
        await lookup_round(channel, "/inventory", "device", ctx.runs)
        await lookup_round(channel, "/nlad", "nlad", ctx.runs)
        await portin_one(ctx, channel)
    line = ctx.runs.enrollments[before].line_ids[0].removeprefix("line-")
    for _ in range(OWN):
        answer = await channel.call("/customer", bodies.line_inquiry(line))
        if answer.get("msg_code") != SUCCESS:
            raise ApiError(f"line_inquiry answered {describe(answer)}")
        ctx.runs.lookup("inquiry", channel.request_id, line)


async def t8_actions(ctx: Context, *, own: bool) -> list[Figure]:
    if own:
        await own_runs(ctx)
    client, runs, sizes, ports = ctx.temporal, ctx.runs, Sizes(), Tally()
    figures = []
    kinds = (
        ("newactivation_1", "NEWACTIVATION line, 1-line enrollments", "NEWACTIVATION", 1),
        ("newactivation_10", "NEWACTIVATION line, 10-line enrollments", "NEWACTIVATION", 10),
        ("portin", "PORTIN line to completion", "PORTIN", 1),
    )
    for name, what, activation, lines in kinds:
        chosen = [r for r in runs.enrollments if r.activation_type == activation and r.lines == lines]
        if chosen:
            tally = await enrollment_tally(client, chosen, sizes, ports)
            figures.append(tally_figure(ctx, name, f"{what} (enrollment share included)", tally))
            figures.append(tasks_figure(ctx, name, f"{what} (enrollment share included)", tally))
    if ports.units:
        what = "port poll, PORTIN lines to completion (their PortInWorkflow's actions over its polls)"
        figures.append(poll_figure(ctx, "poll", what, ports))
    if runs.ports:
        round_ = await polled_tally(client, runs.ports, runs.pending_attempts)
        figures.append(poll_figure(ctx, "poll_round", "port poll, T5's round (ended after it)", round_))
    for kind in ("device", "inquiry", "nlad"):
        if runs.lookups[kind]:
            tally = await plain_tally(client, runs.lookups[kind], sizes, kind)
            figures.append(tally_figure(ctx, kind, f"lookup: {kind}", tally))
    return with_before(ctx, figures) + size_figures(ctx, sizes)


def with_before(ctx: Context, figures: list[Figure]) -> list[Figure]:
    """Each count beside its count before issue 20 (a row of its own, the goal on the ratio)."""
    rows: list[Figure] = []
    for figure in figures:
        name = figure.key.rsplit(".", 1)[-1]
        if name in BEFORE:
            before = Figure(
                ctx.key("T8", f"{name}_before"),
                "T8",
                f"{figure.label}: before issue 20 ({BEFORE_RUN}, not this run)",
                "count",
                value=BEFORE[name],
            )
            figure.against, figure.goal = before.key, Goal("ratio", "<=", round(CUT, 3))
            rows.append(before)
        rows.append(figure)
    return rows
