"""Unit costs for the capacity model (bench.capacity): CPU per call or line by process role — API, worker,
Temporal, sandbox, and the PostgreSQL backends serving the stack's database — and database rows and bytes per
line, as figures of the scenario that measured them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench.context import Context
from bench.footprint import Footprint, per_unit
from bench.processes import identify
from bench.stack import Stack
from bench.stack_processes import TICKS, ProcessTable, cpu_seconds
from bench.stats import Figure

SAMPLE_S = 0.25


class CpuWindow:
    """CPU seconds each role of the stack's processes spent inside an `async with` block, PostgreSQL's backends
    of the stack's database included. Those come and go (a pool's overflow connections close when given back),
    so they are sampled every SAMPLE_S while the window is open, and a backend started inside it counts from
    zero; what a backend spent after its last sample before it ended is missed."""

    def __init__(self, stack: Stack) -> None:
        self.table = ProcessTable.of(stack)
        self.database = stack.pg_database.encode()
        self.before: dict[str, float] = {}
        self.backends: dict[int, tuple[float, float]] = {}  # pid → (CPU when first seen or 0, CPU when last seen)
        self.opened_ticks = 0.0
        self.spent: dict[str, float] = {}
        self._sampler: asyncio.Task[None] | None = None

    async def __aenter__(self) -> CpuWindow:
        self.opened_ticks = _uptime_ticks()
        self.before = self.table.cpu_seconds()
        self._sample()
        self._sampler = asyncio.create_task(self._keep_sampling())
        return self

    async def __aexit__(self, *_exc: object) -> None:
        if self._sampler is not None:
            self._sampler.cancel()
        self._sample()
        self.spent = self.table.since(self.before)
        if self.database:
            self.spent["postgresql"] = round(sum(last - first for first, last in self.backends.values()), 3)

    async def _keep_sampling(self) -> None:
        while True:
            await asyncio.sleep(SAMPLE_S)
            self._sample()

    def _sample(self) -> None:
        if not self.database:
            return
        for pid in _backends(self.database):
            spent, known = cpu_seconds(pid), self.backends.get(pid)
            if known is None:
                process = identify(pid)
                born_inside = process is not None and process.started >= self.opened_ticks
                known = (0.0 if born_inside else spent, spent)
            self.backends[pid] = (known[0], max(known[1], spent))


def _uptime_ticks() -> float:
    """Now, in the clock ticks since boot /proc/<pid>/stat dates a process's start in."""
    return float(Path("/proc/uptime").read_text().split()[0]) * TICKS


def _backends(database: bytes) -> list[int]:
    """PostgreSQL's processes serving `database` (its name is in their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if database in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def cpu_figure(ctx: Context, target: str, name: str, what: str, spent: dict[str, float], units: int) -> Figure:
    """CPU ms per unit over every role; `extra.cpu_ms_by_role` is what the capacity model reads."""
    total = sum(spent.values())
    by_role = {role: round(seconds * 1000 / units, 3) for role, seconds in sorted(spent.items())} if units else {}
    return Figure(
        ctx.key(target, f"cpu_{name}"),
        target,
        f"{ctx.db}: CPU per {what}, all of the stack's processes",
        "ms",
        value=total * 1000 / units if units else None,
        count=units,
        note=", ".join(f"{role} {ms:.1f}" for role, ms in by_role.items() if ms >= 0.05) + " ms",
        extra={"units": units, "cpu_seconds": spent, "cpu_ms_by_role": by_role},
    )


ROLE_NAMES = {"api": "the API", "worker": "the worker", "temporal": "the Temporal server"}


def role_figures(ctx: Context, target: str, total: Figure, what: str) -> list[Figure]:
    """`total`'s CPU per unit for each of the API, the worker and Temporal, as rows of their own: where a unit's
    CPU goes, beside the rate it limits (the sandbox, standing in for the carrier, is left in the total only)."""
    by_role = total.extra.get("cpu_ms_by_role")
    if not isinstance(by_role, dict):
        return []
    return [
        Figure(
            f"{total.key}_{role}",
            target,
            f"{ctx.db}: CPU per {what}, {name}",
            "ms",
            value=float(by_role.get(role, 0.0)),
            count=total.count,
        )
        for role, name in ROLE_NAMES.items()
    ]


def footprint_figures(ctx: Context, target: str, what: str, added: Footprint, units: int) -> list[Figure]:
    """Rows and bytes the database gained per `what` (e.g. per line), with the tables that gained them."""
    found = per_unit(added, units)
    if found is None:
        return []
    rows = Figure(
        ctx.key(target, "db_rows"),
        target,
        f"{ctx.db}: database rows per {what}",
        "count",
        value=found.rows,
        count=units,
        note=", ".join(f"{table} {rows:g}" for table, rows in found.rows_by_table.items()),
        extra={"rows_by_table": found.rows_by_table, "units": units},
    )
    size = Figure(
        ctx.key(target, "db_bytes"),
        target,
        f"{ctx.db}: database bytes per {what} (tables and indexes)",
        "count",
        value=found.bytes,
        count=units,
        extra={"bytes_by_table": found.bytes_by_table, "units": units},
    )
    return [rows, size]
