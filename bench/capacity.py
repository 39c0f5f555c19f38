"""`python -m bench.capacity BENCH_JSON > docs/capacity.md` (or `make capacity`): the capacity model, generated
from one `make bench` JSON. Every measured figure in the document is read from that JSON, and the document names
the field it came from; the only numbers written here are the model's inputs (DEPLOYMENTS and the rest below),
shown as such in the document. A field the JSON lacks is a Drift, never a guess."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from typing import Any

from bench import goals
from bench.reading import PG, PORTS, SQLITE, Bench, Drift, number, source

MONTH_S = 30 * 86_400
GB = 1e9


@dataclass(frozen=True)
class Deployment:
    label: str
    enrollments_per_month: int
    pending_ports: int

    @property
    def name(self) -> str:
        return f"{self.label}: {self.enrollments_per_month:,} enrollments a month, {self.pending_ports:,} pending ports"


# The model's inputs: what is asked (issue 20), and how traffic is assumed to be shaped. Not measurements.
DEPLOYMENTS = (
    Deployment("Large", 1_000_000, 50_000),
    # The issue gives no port count for the small MVNO: the large deployment's ports per enrollment, scaled.
    Deployment("Small MVNO", 10_000, 500),
)
PEAK = 5.0  # the busiest hour carries this many times the month's average rate of enrollments
CORE_BUDGET = 0.7  # a process is sized to use at most this share of its core in the busiest hour
# The API calls of one enrollment, by the bench's measured call kinds (authenticate is not measured: argon2).
CALL_MIX = {"enrollment": 1, "device": 1, "nlad": 1, "update_location_coordinate": 1, "plan_list": 1}


# T8's history figures, by the part each workflow plays (bench.temporal_actions.ROLES).
HISTORIES = (
    # A NEWACTIVATION line its first try activated has no workflow of its own (issue 36): its order's is its history.
    ("enrollment", "the order's EnrollmentWorkflow"),
    ("line_portin", "a PORTIN line's workflow, to completion"), ("device", "the device lookup's workflow"),
    ("nlad", "the NLAD check's workflow"),
)  # fmt: skip


@dataclass(frozen=True)
class Row:
    label: str
    value: float
    unit: str
    how: str  # where it comes from: a JSON source, or the formula over rows above


def unit_costs(b: Bench) -> dict[str, list[Row]]:
    """The measured unit costs, each with the JSON field it was read from."""

    def row(label: str, key: str, path: str = "value", unit: str = "ms") -> Row:
        return Row(label, b(key, path), unit, source(key, path))

    t1, t3, t4, t5, t7, t8 = (f"T1.{PG}", f"T3.{SQLITE}", f"T4.{SQLITE}", f"T5.{PORTS}", f"T7.{PG}", f"T8.{SQLITE}")
    api, role = "extra.server_cpu_ms_per_call", "extra.cpu_ms_by_role"
    polls = b(f"{t5}.poll_cpu", "count")
    poll_how = f"{source(f'{t5}.poll_round', 'extra.cpu_seconds.ROLE')} × 1000 ÷ {source(f'{t5}.poll_cpu', 'count')}"
    per_poll = [
        Row(
            f"{r} per port poll",
            b(f"{t5}.poll_round", f"extra.cpu_seconds.{r}") * 1000 / polls,
            "ms",
            poll_how.replace("ROLE", r),
        )
        for r in ("worker", "temporal")
    ]
    lookups = ("device", "nlad")
    return {
        "API CPU per call (ms)": [
            row("update_location_coordinate, PostgreSQL", f"{t1}.update_location_coordinate", api),
            row("update_location_coordinate, SQLite", f"T1.{SQLITE}.update_location_coordinate", api),
            # The same work done plainly: how far Lineup's call is from the least it could cost.
            row("the shared floor's call (../shared/bench), PostgreSQL", f"{t1}.shared_floor", api),
            row("the shared floor's call (../shared/bench), SQLite", f"T1.{SQLITE}.shared_floor", api),
            row("plan_list, PostgreSQL", f"{t1}.plan_list", api),
            row("1-line enrollment (availability + create), PostgreSQL", f"{t7}.cpu_enrollment", f"{role}.api"),
            *(row(f"{kind} lookup, SQLite", f"{t4}.cpu_{kind}", f"{role}.api") for kind in lookups),
        ],
        "Worker, Temporal server and database CPU (ms)": [
            *(
                row(f"{r} per 1-line enrollment, PostgreSQL", f"{t7}.cpu_enrollment", f"{role}.{r}")
                for r in ("worker", "temporal", "postgresql", "sandbox")
            ),
            *(
                row(f"{r} per NEWACTIVATION line, SQLite", f"{t3}.cpu_line", f"{role}.{r}")
                for r in ("api", "worker", "temporal")
            ),
            *(
                row(f"{r} per {kind} lookup, SQLite", f"{t4}.cpu_{kind}", f"{role}.{r}")
                for kind in lookups
                for r in ("worker", "temporal")
            ),
            *per_poll,
            row("all processes per port poll", f"{t5}.poll_cpu"),
        ],
        "Temporal actions": [
            row("per NEWACTIVATION line (its enrollment's share included)", f"{t8}.newactivation_1", unit="actions"),
            row("per PORTIN line to completion (its port's polls included)", f"{t8}.portin", unit="actions"),
            # A PORTIN line's PortInWorkflow does the whole port: its submission and completion are spread over
            # its polls too, so these bound a long-pending port's poll from above.
            row("per port poll, the port's whole workflow spread over its polls", f"{t8}.poll", unit="actions"),
            row("per port poll, without its start", f"{t8}.poll", "extra.marginal", "actions"),
            *(row(f"per {kind} lookup", f"{t8}.{kind}", unit="actions") for kind in ("device", "nlad", "inquiry")),
            *(
                row(f"{label}, before issue 20 (an earlier run's count)", f"{t8}.{name}_before", unit="actions")
                for name, label in (
                    ("newactivation_1", "per NEWACTIVATION line"),
                    ("portin", "per PORTIN line"),
                    ("poll", "per port poll"),
                    ("nlad", "per nlad lookup"),
                )
            ),
        ],
        "Database": [
            row("rows per 1-line enrollment, PostgreSQL", f"{t7}.db_rows", unit="rows"),
            row("bytes per 1-line enrollment, PostgreSQL", f"{t7}.db_bytes", unit="bytes"),
            row("rows per NEWACTIVATION line, SQLite", f"{t3}.db_rows", unit="rows"),
            row("bytes per NEWACTIVATION line, SQLite", f"{t3}.db_bytes", unit="bytes"),
        ],
        "Temporal history per workflow (median)": [
            found
            for name, label in HISTORIES
            for found in (
                row(f"{label}, bytes", f"{t8}.history_{name}", unit="bytes"),
                row(f"{label}, events", f"{t8}.history_{name}", "extra.events", "events"),
            )
        ],
    }


@dataclass(frozen=True)
class PerEnrollment:
    """The measured costs the deployments scale: per enrollment (its CALL_MIX) and per port poll."""

    api_ms: float
    worker_ms: float
    temporal_ms: float
    database_ms: float
    poll_worker_ms: float
    poll_temporal_ms: float
    actions: float
    poll_actions: float
    database_bytes: float
    history_bytes: float
    poll_seconds: float
    pool: float
    overflow: float


def per_enrollment(b: Bench) -> PerEnrollment:
    t1, t4, t5, t7, t8 = f"T1.{PG}", f"T4.{SQLITE}", f"T5.{PORTS}", f"T7.{PG}", f"T8.{SQLITE}"
    role, lookups = "extra.cpu_ms_by_role", ("device", "nlad")
    calls = ("update_location_coordinate", "plan_list")
    api = {
        "enrollment": b(f"{t7}.cpu_enrollment", f"{role}.api"),
        **{kind: b(f"{t4}.cpu_{kind}", f"{role}.api") for kind in lookups},
        **{call: b(f"{t1}.{call}", "extra.server_cpu_ms_per_call") for call in calls},
    }

    def enrollment_and_lookups(name: str) -> float:
        return b(f"{t7}.cpu_enrollment", f"{role}.{name}") + sum(b(f"{t4}.cpu_{k}", f"{role}.{name}") for k in lookups)

    def poll_ms(name: str) -> float:
        return b(f"{t5}.poll_round", f"extra.cpu_seconds.{name}") * 1000 / b(f"{t5}.poll_cpu", "count")

    return PerEnrollment(
        api_ms=sum(CALL_MIX[kind] * ms for kind, ms in api.items()),
        worker_ms=enrollment_and_lookups("worker"),
        temporal_ms=enrollment_and_lookups("temporal"),
        database_ms=b(f"{t7}.cpu_enrollment", f"{role}.postgresql"),
        poll_worker_ms=poll_ms("worker"),
        poll_temporal_ms=poll_ms("temporal"),
        actions=b(f"{t8}.newactivation_1") + sum(b(f"{t8}.{kind}") for kind in lookups),
        poll_actions=b(f"{t8}.poll", "extra.marginal"),
        database_bytes=b(f"{t7}.db_bytes"),
        history_bytes=sum(b(f"{t8}.history_{name}") for name in HISTORY_PER_ENROLLMENT),
        poll_seconds=b("meta", "settings_defaults.port_poll_seconds"),
        pool=b("meta", "pg_pool.size"),
        overflow=b("meta", "pg_pool.max_overflow"),
    )


def deployment_rows(costs: PerEnrollment, deployment: Deployment) -> list[Row]:
    """The arithmetic for one deployment, each row with its formula."""
    c, enrollments = costs, deployment.enrollments_per_month
    average = enrollments / MONTH_S
    peak, polls = average * PEAK, deployment.pending_ports / c.poll_seconds
    api_cores = peak * c.api_ms / 1000
    worker_cores = (peak * c.worker_ms + polls * c.poll_worker_ms) / 1000
    api, workers = max(1, math.ceil(api_cores / CORE_BUDGET)), max(1, math.ceil(worker_cores / CORE_BUDGET))
    actions = enrollments * c.actions + polls * MONTH_S * c.poll_actions
    return [
        Row("enrollments per second, month's average", average, "/s", f"enrollments per month ÷ {MONTH_S:,} s"),
        Row("enrollments per second, busiest hour", peak, "/s", f"× PEAK ({PEAK:g})"),
        Row("port polls per second", polls, "/s", "pending ports ÷ LINEUP_PORT_POLL_SECONDS' default"),
        Row("API CPU per enrollment, its calls", c.api_ms, "ms", "Σ CALL_MIX × API CPU per call"),
        Row("API cores, busiest hour", api_cores, "cores", "enrollments/s × API CPU per enrollment"),
        Row("API processes", api, "processes", f"API cores ÷ CORE_BUDGET ({CORE_BUDGET:g}), up"),
        Row(
            "worker cores, busiest hour",
            worker_cores,
            "cores",
            "enrollments/s × worker CPU (enrollment + its lookups) + polls/s × worker CPU per poll",
        ),
        Row("worker processes", workers, "processes", f"worker cores ÷ CORE_BUDGET ({CORE_BUDGET:g}), up"),
        Row(
            "Temporal server cores if self-hosted, busiest hour",
            (peak * c.temporal_ms + polls * c.poll_temporal_ms) / 1000,
            "cores",
            "as the worker's, with the Temporal server's CPU",
        ),
        Row(
            "PostgreSQL cores for enrollments, busiest hour",
            peak * c.database_ms / 1000,
            "cores",
            "enrollments/s × PostgreSQL CPU per 1-line enrollment (the other calls' not measured)",
        ),
        Row(
            "PostgreSQL connections, pools at their size",
            (api + workers) * c.pool,
            "connections",
            "(API + worker processes) × pool size",
        ),
        Row(
            "PostgreSQL connections at most",
            (api + workers) * (c.pool + c.overflow),
            "connections",
            "(API + worker processes) × (pool size + overflow)",
        ),
        Row(
            "Temporal actions per month",
            actions,
            "actions",
            "enrollments × (NEWACTIVATION line + device + NLAD lookups) + polls per month × per poll without start",
        ),
        Row("Temporal actions per second, month's average", actions / MONTH_S, "/s", "actions per month ÷ month"),
        Row(
            "database growth per month, PostgreSQL",
            enrollments * c.database_bytes / GB,
            "GB",
            "enrollments × bytes per 1-line enrollment ÷ 10⁹",
        ),
        Row(
            "Temporal history written per month",
            enrollments * c.history_bytes / GB,
            "GB",
            "enrollments × (the order's + device and NLAD lookups' workflows) history bytes ÷ 10⁹ (a line its first "
            "try activated has no workflow of its own)",
        ),
    ]


HISTORY_PER_ENROLLMENT = ("enrollment", "device", "nlad")


def table(rows: list[Row]) -> list[str]:
    return [
        "| | value | unit | from |",
        "|---|---:|---|---|",
        *(f"| {row.label} | {number(row.value)} | {row.unit} | {row.how} |" for row in rows),
    ]


def header(b: Bench, name: str) -> list[str]:
    doc = b.document
    others = {f["target"]: f["other_cores"] for f in doc["figures"] if f.get("other_cores") is not None}
    busy = ", ".join(f"{target} {cores:.2f}" for target, cores in sorted(others.items()))
    return [
        "# Capacity model",
        "",
        f"Generated by `python -m bench.capacity {name}` (`make capacity`) from one `make bench` run; "
        "do not edit by hand.",
        f"Run: {doc['started_utc']}, {'quick' if doc['quick'] else 'full'}, {doc['seconds']:.0f} s, targets "
        f"{', '.join(doc['targets'])}, git {doc['git']}, {doc['cpus']} CPUs, load average "
        f"{doc['load_average_before']:.2f} before and {doc['load_average_after']:.2f} after; CPU cores other work "
        f"took during each target: {busy}.",
        "The machine is shared: every CPU figure below carries that noise.",
    ]


def inputs() -> list[str]:
    mix = ", ".join(f"{kind} × {count}" for kind, count in CALL_MIX.items())
    return [
        "## Inputs of the model (not measured)",
        "",
        *(f"- {d.name} (ports pending at any time)." for d in DEPLOYMENTS),
        f"- A month is {MONTH_S:,} s; the busiest hour carries PEAK = {PEAK:g} × the month's average rate.",
        f"- A process is sized to use at most CORE_BUDGET = {CORE_BUDGET:g} of a core in the busiest hour.",
        f"- CALL_MIX, the API calls of one enrollment: {mix} (enrollment = availability + 1-line create; "
        "/authenticate's argon2 check is not measured and not included).",
        "- Every enrollment is one NEWACTIVATION line; pending ports poll at the default interval of their first day "
        "(later days poll 2× and 4× less often, so this bounds them from above); a PORTIN line's own actions are "
        "in the unit costs.",
    ]


def generate(document: dict[str, Any], name: str) -> str:
    b = Bench(document)
    lines = [*header(b, name), "", *goals.section(b), "", "## Measured unit costs", ""]
    for section, rows in unit_costs(b).items():
        lines += [f"### {section}", "", *table(rows), ""]
    lines += [*inputs(), ""]
    costs = per_enrollment(b)
    for deployment in DEPLOYMENTS:
        lines += [f"## {deployment.name}", "", *table(deployment_rows(costs, deployment)), ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bench.capacity BENCH_JSON > docs/capacity.md", file=sys.stderr)
        return 2
    with open(argv[0]) as file:
        document = json.load(file)
    try:
        sys.stdout.write(generate(document, argv[0].rsplit("/", 1)[-1]))
    except Drift as drift:
        print(f"bench.capacity: {drift}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
