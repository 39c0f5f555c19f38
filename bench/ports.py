"""Free TCP ports for servers a test, the bench or the soak starts and that bind them a moment later.

A port found free by binding port 0 comes from the kernel's ephemeral range (32768–60999 on Linux), where the
kernel hands out ports to every outgoing connection meanwhile: with other processes busy (pytest-xdist runs a
process per core) one was taken between the choice and the bind. These come from below that range instead,
where nothing is handed out at random, and each pytest-xdist worker draws from a slice of its own, so two never
choose the same port."""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

LOWEST = 10_000  # above the well-known and registered ports services usually take
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _ephemeral_start() -> int:
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def _slice() -> range:
    """This process's ports: below the ephemeral range, split evenly between the pytest-xdist workers."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    width = (_ephemeral_start() - LOWEST) // max(count, 1)
    start = LOWEST + width * (int(worker) if worker.isdigit() else 0)
    return range(start, start + width)


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the servers bind: TIME_WAIT is free
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


_handed_out: set[int] = set()  # ports this process gave out and a server may not have bound yet


def free_ports(count: int, *, run: int = 1) -> list[int]:
    """`count` distinct ports free right now, none given out before by this process (its servers may still be
    starting); with `run` N, each is the first of N consecutive free ports (a worker's metrics port and the next
    ones for its siblings)."""
    candidates = _slice()
    if len(_handed_out) > len(candidates) // 2:  # long ago enough: their servers have bound them or are gone
        _handed_out.clear()
    chosen: list[int] = []
    for _ in range(10_000):
        if len(chosen) == count:
            return chosen
        block = range(base := random.choice(candidates[: len(candidates) - run]), base + run)
        if _handed_out.isdisjoint(block) and all(_bindable(port) for port in block):
            chosen.append(base)
            _handed_out.update(block)
    raise RuntimeError(f"no {count} free ports found in {candidates}")


def free_port() -> int:
    return free_ports(1)[0]


def stack_on_free_ports(
    data_dir: Path, database_url: str, *, api_processes: int, worker_processes: int
) -> dict[str, str]:
    """The LINEUP_* variables that put `lineup run`'s processes (or production's, started one by one) on free
    ports of this host, with their own data dir and database: the bench's and the soak's stacks."""
    api, temporal, ui, sandbox, smtp = free_ports(5)
    return {
        "LINEUP_DATA_DIR": str(data_dir),
        "LINEUP_DATABASE_URL": database_url,
        "LINEUP_BASE_PATH": "",
        "LINEUP_API_HOST": "127.0.0.1",
        "LINEUP_API_PORT": str(api),
        "LINEUP_API_PROCESSES": str(api_processes),
        "LINEUP_WORKER_PROCESSES": str(worker_processes),
        "LINEUP_TEMPORAL_ADDRESS": f"127.0.0.1:{temporal}",
        "LINEUP_TEMPORAL_UI_PORT": str(ui),
        "LINEUP_SANDBOX_HOST": "127.0.0.1",
        "LINEUP_SANDBOX_PORT": str(sandbox),
        "LINEUP_SANDBOX_SMTP_PORT": str(smtp),
        "LINEUP_SMTP_HOST": "127.0.0.1",
        "LINEUP_SMTP_PORT": str(smtp),
    }
