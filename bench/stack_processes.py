"""The processes `lineup run` started, by role — worker, Temporal, sandbox, API — with their CPU time and
memory from /proc, and the worker's own count of port polls from its Prometheus endpoint."""

from __future__ import annotations

import asyncio
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.processes import ProcessId, command_line, descendants, parent_of
from bench.stack import Stack

TICKS = os.sysconf("SC_CLK_TCK")
# From the SDK's metrics: its histograms of activity run times have one series per activity type (their _count is
# activities run, local ones apart), and the workflow cache counts its hits and misses (a miss replays the
# workflow's history).
COUNTERS = {
    "activities": re.compile(r"^temporal_(local_)?activity_execution_latency\w*_count[{ ]"),  # local ones too
    # A port's polls: port_status activities (a timer per poll), or watch_port's attempts (polls by retries).
    "port_status": re.compile(
        r'^temporal_activity_execution_latency\w*_count\{[^}]*activity_type="(port_status|watch_port)"'
    ),
    "cache_hit": re.compile(r"^temporal_sticky_cache_hit\w*[{ ]"),
    "cache_miss": re.compile(r"^temporal_sticky_cache_miss\w*[{ ]"),
}
IDLE_CPU_SHARE = 0.15  # a process using less than this share of a core is taken as idle (pollers tick)


def role(argv: list[str]) -> str:
    joined = " ".join(argv)
    if "-m worker" in joined:
        return "worker"
    if "-m sandbox" in joined:
        return "sandbox"
    if "uvicorn" in joined:
        return "api"
    return "temporal" if argv and Path(argv[0]).name == "temporal" else "other"


def inherited_role(pid: int, named: dict[int, str]) -> str:
    """A process its command line does not name takes its parent's role: uvicorn's `--workers` children are
    multiprocessing spawns whose argv says nothing of uvicorn, yet they are the API."""
    seen = pid
    while named.get(seen, "other") == "other" and (parent := parent_of(seen)) in named:
        seen = parent
    return named.get(seen, "other")


def cpu_seconds(pid: int) -> float:
    """User + system time of one process (not its children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_mb(pid: int, key: str) -> float:
    """A line of /proc/<pid>/status in MB: VmRSS (resident now) or VmHWM (the most it ever was)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(rf"^{key}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found[1]) / 1024 if found else 0.0


@dataclass
class ProcessTable:
    roles: dict[str, list[ProcessId]]

    @classmethod
    def of(cls, stack: Stack) -> ProcessTable:
        assert stack.process is not None
        found = descendants(stack.process.pid)
        named = {process.pid: role(command_line(process.pid)) for process in found}
        roles: dict[str, list[ProcessId]] = {}
        for process in found:
            roles.setdefault(inherited_role(process.pid, named), []).append(process)
        if "worker" not in roles:
            raise RuntimeError("no `python -m worker` process under `lineup run`")
        return cls(roles)

    def cpu_seconds(self) -> dict[str, float]:
        return {name: sum(cpu_seconds(p.pid) for p in found) for name, found in self.roles.items()}

    def since(self, before: dict[str, float]) -> dict[str, float]:
        """CPU seconds per role spent since `before` (an earlier `cpu_seconds()`)."""
        return {name: round(spent - before.get(name, 0.0), 3) for name, spent in self.cpu_seconds().items()}

    def memory_mb(self, name: str, key: str = "VmRSS") -> float:
        """Summed over the role's processes (several worker processes hold several caches)."""
        return sum(memory_mb(p.pid, key) for p in self.roles.get(name, []))

    async def settle(self, name: str, until: float) -> float | None:
        """Waits until the role's processes use less than IDLE_CPU_SHARE of a core over a second, or until
        `until` (epoch seconds); returns when that idle second began, None if it never came."""
        while time.time() < until:
            began, before = time.time(), sum(cpu_seconds(p.pid) for p in self.roles[name])
            await asyncio.sleep(1.0)
            if sum(cpu_seconds(p.pid) for p in self.roles[name]) - before < IDLE_CPU_SHARE:
                return began
        return None


async def each_worker_counters(stack: Stack) -> list[dict[str, int]] | None:
    """COUNTERS of each of the stack's workers (by metrics port), so far; None when one cannot be read."""
    base = int(stack.env.get("LINEUP_WORKER_METRICS_PORT", "0"))
    if not base:
        return None
    found: list[dict[str, int]] = []
    async with httpx.AsyncClient(timeout=5) as http:
        for offset in range(stack.spec.worker_processes):
            try:
                text = (await http.get(f"http://127.0.0.1:{base + offset}/metrics")).text
            except httpx.HTTPError:
                return None
            totals = dict.fromkeys(COUNTERS, 0.0)
            for line in text.splitlines():
                for name, pattern in COUNTERS.items():
                    if pattern.match(line):
                        totals[name] += float(line.rsplit(maxsplit=1)[1])
            found.append({name: int(total) for name, total in totals.items()})
    return found


async def worker_counters(stack: Stack) -> dict[str, int] | None:
    """COUNTERS summed over the stack's workers, so far; None when their metrics cannot be read."""
    each = await each_worker_counters(stack)
    if each is None:
        return None
    return {name: sum(counters[name] for counters in each) for name in COUNTERS}
