"""What `python -m bench` was asked to do, and how long each measurement runs (full or --quick)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

TARGETS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9")
CONNECTIONS = 32  # T1: concurrent connections, each chaining its own tokens
CHANNELS = 16  # T3 and T7: concurrent sales channels


@dataclass(frozen=True)
class Budget:
    """Rounds and seconds per measurement; warm-up rounds and seconds are never counted."""

    load_warmup_s: float
    load_s: float
    uws_rounds: int
    create_1_rounds: int
    create_10_rounds: int
    lookup_rounds: int
    warmup_rounds: int
    rate_warmup_s: float
    rate_s: float
    enrollments: int
    token_load_s: float  # T6: chained requests over HTTP before the table is filled up to TOKEN_ROWS
    port_workflows: int  # T5: pending port workflows for the RSS…
    round_ports: int  # …and ports polling together in the measured round (terminated after it)
    ports_budget_s: float  # T5 starts no workflow after this long: fewer than port_workflows, said so
    cpu_calls: int  # T1: calls one after another, in process, for the CPU per call (bench.call_cpu)


FULL = Budget(5, 15, 40, 20, 8, 30, 3, 5, 30, 100, 60, 10_000, 400, 900, 3000)
QUICK = Budget(2, 5, 12, 5, 2, 8, 1, 2, 8, 32, 15, 1_500, 200, 180, 1000)


@dataclass(frozen=True)
class Options:
    only: frozenset[str]
    quick: bool
    loadgen: str
    postgres: str
    capacity: bool = False
    stacks: frozenset[str] = frozenset()  # stack names (bench.stack.StackSpec.name) to run; empty: all of them

    @property
    def budget(self) -> Budget:
        return QUICK if self.quick else FULL

    def wants(self, *targets: str) -> bool:
        return any(target in self.only for target in targets)

    def runs(self, stack_name: str) -> bool:
        return not self.stacks or stack_name in self.stacks


def parse(argv: list[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(prog="python -m bench", description="issue 11's measurements, as ratios")
    parser.add_argument("--only", default=",".join(TARGETS), help="comma-separated targets, e.g. T1,T2")
    parser.add_argument("--quick", action="store_true", help="fewer rounds and shorter windows, for iterating")
    parser.add_argument("--loadgen", choices=("auto", "python"), default="auto", help="auto: wrk, else Python")
    parser.add_argument(
        "--postgres",
        default="postgresql://postgres@127.0.0.1:5432/test",
        help="a PostgreSQL the bench may create and drop its own databases on",
    )
    parser.add_argument(
        "--capacity", action="store_true", help="at the end, write docs/capacity.md from this run (bench.capacity)"
    )
    parser.add_argument(
        "--stacks",
        default="",
        help="comma-separated stacks, e.g. postgresql-1x1 (a bisect's one figure); default: every stack",
    )
    args = parser.parse_args(argv)
    only = frozenset(part.strip().upper() for part in args.only.split(",") if part.strip())
    if unknown := only - set(TARGETS):
        parser.error(f"unknown targets: {', '.join(sorted(unknown))}")
    stacks = frozenset(part.strip() for part in args.stacks.split(",") if part.strip())
    return Options(only, args.quick, args.loadgen, args.postgres, args.capacity, stacks)
