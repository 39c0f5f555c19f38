"""Every process the bench starts, in its own process group, and the guarantee that none outlives it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

STOP_GRACE_SECONDS = 20.0


@dataclass(frozen=True)
class ProcessId:
    """A pid with its start time: tells the process apart from a later one that reused the pid."""

    pid: int
    started: int

    def alive(self) -> bool:
        return _start_time(self.pid) == self.started

    def kill(self) -> None:
        if self.alive():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signal.SIGKILL)


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    return text[text.rindex(")") + 2 :].split()


def _start_time(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[19]) if fields else None  # field 22 of /proc/<pid>/stat


def parent_of(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[1]) if fields else None


def identify(pid: int) -> ProcessId | None:
    started = _start_time(pid)
    return ProcessId(pid, started) if started is not None else None


def descendants(root: int) -> list[ProcessId]:
    """Every live process below `root`, found through /proc (children may have left its process group)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name))):
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[ProcessId] = []
    frontier = [root]
    while frontier:
        for child in parents.get(frontier.pop(), []):
            if (process := identify(child)) is not None:
                found.append(process)
                frontier.append(child)
    return found


def command_line(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode() for part in raw.split(b"\0") if part]


class Children:
    """Processes started in their own session; `kill_all` leaves none of them, nor what they started."""

    def __init__(self) -> None:
        self.leaders: list[ProcessId] = []
        self.known: set[ProcessId] = set()
        self.below: dict[int, set[ProcessId]] = {}  # root pid → every descendant seen so far

    def spawn(
        self, command: list[str], *, env: dict[str, str] | None = None, log: Path | None = None, cwd: Path | None = None
    ) -> subprocess.Popen[bytes]:
        output = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 — lives as long as the child
        # Own session: Ctrl-C reaches only the bench, which then stops its children in order.
        process = subprocess.Popen(
            command, env=env, cwd=cwd, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
        self._remember(process.pid)
        return process

    async def spawn_async(self, command: list[str], *, cwd: Path | None = None) -> asyncio.subprocess.Process:
        """A child whose output the bench reads (the load generator)."""
        process = await asyncio.create_subprocess_exec(
            *command, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True
        )
        self._remember(process.pid)
        return process

    def _remember(self, pid: int) -> None:
        if (process := identify(pid)) is not None:
            self.leaders.append(process)
            self.known.add(process)

    def note_descendants(self, root: int) -> set[ProcessId]:
        """Records what `root` has started so far, so it is killed even if `root` dies without stopping it."""
        seen = self.below.setdefault(root, set())
        seen.update(descendants(root))
        self.known.update(seen)
        return set(seen)

    def kill_all(self) -> None:
        for leader in self.leaders:
            self.known.update(descendants(leader.pid) if leader.alive() else [])
            if leader.alive():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(leader.pid, signal.SIGKILL)
        for process in self.known:
            process.kill()


CHILDREN = Children()


def terminate(process: subprocess.Popen[bytes], grace: float = STOP_GRACE_SECONDS) -> int:
    """SIGTERM, then SIGKILL to the whole group after `grace` seconds; returns the exit code."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # what it left behind in its group
    return process.returncode


def exit_now(code: int) -> None:
    """Leaves without running the interpreter's teardown: after a Temporal client or worker it may abort
    (temporalio/sdk-python#300, PyGILState_Release), which would turn a good run into a failed one."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
