"""Each process under a restart loop, as systemd runs a unit with `Restart=always`, `RestartSec=1` and the default
`KillMode=control-group`: when the main process dies, what is left of its group is stopped (SIGTERM, then
SIGKILL), and the process starts again a second later. Every child also gets the parent-death signal of
`lineup run`, so nothing outlives the soak however it ends."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from cli.run import dies_with_this_process

RESTART_SECONDS = 1.0
STOP_GRACE_SECONDS = 15.0
# What the operations docs give the API as TimeoutStopSec: uvicorn workers whose master died finish the requests
# they are answering (SIGTERM from their parent-death signal), and are killed only after this.
LEFTOVER_GRACE_SECONDS = 40.0


def group_members(pgid: int) -> list[int]:
    """Live processes of process group `pgid` (orphans re-parented to init included), from /proc."""
    members: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":  # fields[0] is the state: a zombie is already gone
            members.append(int(entry.name))
    return members


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def stop_group(pgid: int, grace: float) -> None:
    """SIGTERM to the group, SIGKILL to what is left of it after `grace` seconds."""
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    _signal_group(pgid, signal.SIGKILL)


@dataclass
class Exit:
    """A main process that ended: when (epoch seconds), how, and what of its group was still running."""

    service: str
    at: float
    code: int | None  # negative: the signal that ended it
    leftovers: int  # processes of its group still alive a restart delay later (uvicorn workers, say)


@dataclass
class Service:
    name: str
    command: list[str]
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    died_at: float | None = None  # monotonic time the loop saw it dead; None while it runs
    drain_until: float | None = None  # while what is left of its group has been asked to stop

    def start(self) -> None:
        with open(self.log, "ab") as output:
            # Own process group, so the group can be stopped as systemd stops a unit's cgroup.
            self.process = subprocess.Popen(
                self.command,
                stdout=output,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,
                preexec_fn=dies_with_this_process(),
            )
        self.starts += 1
        self.died_at = self.drain_until = None


@dataclass
class Keeper:
    """The soak's services, kept running. `tick` is one step of the restart loops: the soak calls it every
    ~0.2 s from its event loop, so it never blocks (and children are forked from that one thread only)."""

    logs: Path
    services: dict[str, Service] = field(default_factory=dict)
    exits: list[Exit] = field(default_factory=list)
    stopping: bool = False

    def add(self, name: str, command: list[str], env: dict[str, str]) -> Service:
        self.logs.mkdir(parents=True, exist_ok=True)
        service = Service(name, command, env, self.logs / f"{name}.log")
        service.start()
        self.services[name] = service
        return service

    def tick(self) -> None:
        if self.stopping:
            return
        now = time.monotonic()
        for service in self.services.values():
            process = service.process
            if process is None or process.poll() is None:
                continue
            if service.died_at is None:
                service.died_at = now
            elif service.drain_until is not None:
                if not group_members(process.pid) or now >= service.drain_until:
                    _signal_group(process.pid, signal.SIGKILL)
                    service.start()
            elif now - service.died_at >= RESTART_SECONDS:
                self._restart(service, now)

    def _restart(self, service: Service, now: float) -> None:
        """The restart delay is over: what is left of the group is asked to stop first, as systemd would."""
        assert service.process is not None
        pgid = service.process.pid
        leftovers = len(group_members(pgid))
        self.exits.append(Exit(service.name, time.time(), service.process.returncode, leftovers))
        if not leftovers:
            service.start()
            return
        _signal_group(pgid, signal.SIGTERM)
        service.drain_until = now + LEFTOVER_GRACE_SECONDS

    def kill(self, name: str) -> int:
        """SIGKILL to the service's main process only (for the API, the uvicorn master); returns its pid."""
        process = self.services[name].process
        assert process is not None
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
        return process.pid

    def running(self, name: str) -> bool:
        process = self.services[name].process
        return process is not None and process.poll() is None

    def stop(self) -> None:
        """Every service's group, last added first, as `lineup run` stops its stages."""
        self.stopping = True
        for service in reversed(list(self.services.values())):
            if service.process is not None:
                stop_group(service.process.pid, STOP_GRACE_SECONDS)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    service.process.wait(1)
