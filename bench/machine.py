"""How much of the machine other work took while a scenario ran: the bench shares 2 cores with whatever
else runs, and a figure is only read right beside that number."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from bench.postgres import DATABASE_PREFIX
from bench.processes import descendants

TICKS = os.sysconf("SC_CLK_TCK")
NEEDLE = DATABASE_PREFIX.encode()


def _busy_seconds() -> float:
    """CPU seconds the whole machine spent outside idle and iowait since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / TICKS


def _process_seconds(pid: int) -> float:
    """User + system time of `pid` and of the children it has reaped."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / TICKS


def _postgres_backends() -> list[int]:
    """PostgreSQL's processes serving the bench's databases: their work is the stack's, not other work."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if NEEDLE in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _ours() -> dict[int, float]:
    """CPU seconds per process of the bench: itself, everything below it, its databases' backends."""
    me = os.getpid()
    pids = [me, *(child.pid for child in descendants(me)), *_postgres_backends()]
    return {pid: _process_seconds(pid) for pid in pids}


@dataclass
class OtherWork:
    """Snapshot at start; `cores()` is the CPU other processes used since, in cores (0 … CPU count).
    Approximate: a process of ours that ends in between without being reaped by one of ours is missed."""

    started: float
    busy: float
    ours: dict[int, float]

    @classmethod
    def start(cls) -> OtherWork:
        return cls(time.monotonic(), _busy_seconds(), _ours())

    def cores(self) -> float:
        elapsed = time.monotonic() - self.started
        now = _ours()
        mine = sum(seconds - self.ours.get(pid, 0.0) for pid, seconds in now.items())
        foreign = (_busy_seconds() - self.busy) - mine
        return max(0.0, foreign / elapsed) if elapsed > 0 else 0.0
