"""`lineup run` keeps its children in hand (issue 19, item 14): they die with it even when it is SIGKILLed, a
taken port is refused with its holder named, a child that dies has its log's end printed; and a SIGKILLed
uvicorn master leaves no worker process serving."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from bench.processes import ProcessId, descendants, identify
from bench.stack import REPO, StackSpec, lineup_binary, stack_env
from cli.run import ChildSpec, Supervisor, api_command, log_tail, port_holder, port_is_free, taken_ports
from tests.support.app import make_settings

GONE_WITHIN_SECONDS = 10.0
READY_WITHIN_SECONDS = 120.0  # the whole stack on a shared 2-core machine
STACK_PORTS = ("LINEUP_API_PORT", "LINEUP_TEMPORAL_UI_PORT", "LINEUP_SANDBOX_PORT", "LINEUP_SANDBOX_SMTP_PORT")


def ports_of(env: dict[str, str]) -> list[int]:
    ports = [int(env[name]) for name in STACK_PORTS]
    base = int(env["LINEUP_WORKER_METRICS_PORT"])
    return [*ports, int(env["LINEUP_TEMPORAL_ADDRESS"].rsplit(":", 1)[1]), base, base + 1]


def wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


@pytest.fixture
def launcher_env(data_dir: Path, sqlite_url: str) -> dict[str, str]:
    """`make run`'s environment on free ports, a temp data dir and a migrated, seeded SQLite copy; two API
    processes and two workers, so uvicorn's workers and each worker's metrics port are covered too."""
    env, _ = stack_env(data_dir, StackSpec("sqlite", api_processes=2, worker_processes=2), sqlite_url)
    return env


class Started:
    """Processes a test starts and every process seen below them: none outlives the test, even when the
    feature under test fails (then the children were re-parented away from what started them)."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []
        self.seen: set[ProcessId] = set()

    def add(self, process: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
        self.processes.append(process)
        return process

    def below(self, process: subprocess.Popen[bytes]) -> list[ProcessId]:
        found = descendants(process.pid)
        self.seen.update(found)
        return found

    def kill_all(self) -> None:
        for process in self.processes:
            self.below(process)
            process.kill()
            process.wait()
        for leftover in self.seen:
            leftover.kill()


@pytest.fixture
def started() -> Iterator[Started]:
    tracker = Started()
    yield tracker
    tracker.kill_all()


def launch(env: dict[str, str], log: Path, started: Started) -> subprocess.Popen[bytes]:
    with open(log, "wb") as output:
        command = [lineup_binary(), "run"]
        return started.add(subprocess.Popen(command, env=env, cwd=REPO, stdout=output, stderr=subprocess.STDOUT))


def ready(env: dict[str, str], process: subprocess.Popen[bytes], log: Path) -> bool:
    assert process.poll() is None, f"lineup run exited before it was ready:\n{log.read_text()}"
    try:
        return httpx.get(f"http://127.0.0.1:{env['LINEUP_API_PORT']}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_every_child_dies_with_a_sigkilled_launcher_and_frees_its_ports(launcher_env, data_dir, started):
    said = data_dir / "run.out"
    launcher = launch(launcher_env, said, started)
    assert wait_for(lambda: ready(launcher_env, launcher, said), READY_WITHIN_SECONDS), said.read_text()
    children = started.below(launcher)
    # Temporal, the sandbox, two workers, the uvicorn master and its two worker processes.
    assert len(children) >= 7, children
    os.kill(launcher.pid, signal.SIGKILL)
    launcher.wait()
    assert wait_for(lambda: not any(child.alive() for child in children), GONE_WITHIN_SECONDS), [
        child for child in children if child.alive()
    ]
    assert [port for port in ports_of(launcher_env) if not port_is_free("127.0.0.1", port)] == []


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGQUIT])
def test_a_closing_terminal_or_sigquit_stops_everything_in_order(launcher_env, data_dir, started, signum):
    said = data_dir / "run.out"
    launcher = launch(launcher_env, said, started)
    assert wait_for(lambda: "started temporal" in said.read_text() or launcher.poll() is not None, 60)
    temporal = started.below(launcher)
    os.kill(launcher.pid, signum)
    assert launcher.wait(60) == 0, said.read_text()  # a stop asked for, not a death by the signal
    assert said.read_text().rstrip().endswith("lineup: stopped")
    assert temporal and not any(process.alive() for process in temporal)


def test_a_taken_port_is_refused_with_the_process_holding_it(launcher_env, data_dir, started):
    port = int(launcher_env["LINEUP_API_PORT"])
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        launcher = launch(launcher_env, data_dir / "run.out", started)
        assert launcher.wait(30) == 1
    said = (data_dir / "run.out").read_text()
    assert f"cannot start api: port {port} (127.0.0.1) is taken by pid {os.getpid()} (" in said
    assert "started temporal" not in said  # refused before anything was started


def test_a_child_that_dies_while_starting_has_its_log_tail_printed(launcher_env, data_dir, started):
    launcher_env["LINEUP_SANDBOX_FAULT_RATE"] = "5"  # out of range: the sandbox refuses to start
    launcher = launch(launcher_env, data_dir / "run.out", started)
    assert launcher.wait(READY_WITHIN_SECONDS) == 1
    said = (data_dir / "run.out").read_text()
    assert f"sandbox exited with code 1; the last lines of {data_dir / 'logs' / 'sandbox.log'}:" in said
    assert "fault_rate" in said  # the cause, from the sandbox's own log
    assert "exited while waiting for the sandbox" in said
    assert port_is_free("127.0.0.1", int(launcher_env["LINEUP_TEMPORAL_UI_PORT"]))  # Temporal was stopped


def test_a_child_that_exits_later_is_reported_with_its_log(tmp_path):
    supervisor = Supervisor(tmp_path / "logs")
    script = "import sys, time; print('line one'); print('the cause', flush=True); time.sleep(0.3); sys.exit(3)"
    supervisor.start([ChildSpec("job", [sys.executable, "-c", script])])
    try:
        assert wait_for(lambda: supervisor.exited() is not None, 10)
        child = supervisor.exited()
        assert child is not None
        report = child.failure()
    finally:
        supervisor.stop()
    assert report.startswith(f"lineup: job exited with code 3; the last lines of {tmp_path / 'logs' / 'job.log'}:")
    assert report.endswith("line one\nthe cause")


def test_the_supervisors_children_die_with_it_when_it_is_sigkilled(tmp_path):
    """The same guarantee without the whole stack: a supervisor in a process of its own, SIGKILLed."""
    script = (
        "import sys, time; from pathlib import Path; from cli.run import ChildSpec, Supervisor\n"
        f"s = Supervisor(Path({str(tmp_path)!r}))\n"
        "s.start([ChildSpec('sleeper', ['sleep', '300'])])\n"
        "print(s.stages[0][0].process.pid, flush=True)\n"
        "time.sleep(300)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE)
    sleeper: ProcessId | None = None
    try:
        assert parent.stdout is not None
        parent.stdout.readline()  # "lineup: started sleeper …"
        sleeper = identify(int(parent.stdout.readline()))
        assert sleeper is not None
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        assert wait_for(lambda: sleeper is not None and not sleeper.alive(), GONE_WITHIN_SECONDS)
    finally:
        parent.kill()
        if sleeper is not None:
            sleeper.kill()


def test_a_sigkilled_uvicorn_master_leaves_no_worker_serving(data_dir, started):
    port = socket.socket()
    port.bind(("127.0.0.1", 0))
    number = port.getsockname()[1]
    port.close()
    settings = make_settings(data_dir, f"sqlite+aiosqlite:///{data_dir}/x.db", api_port=number, api_processes=2)
    # The command `lineup run` serves the API with, a bare app in place of Lineup's (the protocol is the same).
    command = [("bench.bare_api:create_app" if ":" in arg and "=" not in arg else arg) for arg in api_command(settings)]
    master = started.add(subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    url = f"http://127.0.0.1:{number}/x"

    def serving() -> bool:
        try:
            return httpx.post(url, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    assert wait_for(lambda: serving() and len(started.below(master)) >= 2, 60)
    workers = started.below(master)
    os.kill(master.pid, signal.SIGKILL)
    master.wait()
    assert wait_for(lambda: not any(worker.alive() for worker in workers), GONE_WITHIN_SECONDS), workers
    assert not serving()
    assert port_is_free("127.0.0.1", number)


def test_port_holder_names_the_listening_process_and_taken_ports_says_so():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        found = port_holder(port)
        assert found is not None and found.pid == os.getpid()
        assert "pytest" in found.command or "python" in found.command
        assert not port_is_free("127.0.0.1", port)
        refusal = taken_ports("api", [("127.0.0.1", port)])
    assert refusal is not None and f"port {port} (127.0.0.1) is taken by pid {os.getpid()}" in refusal
    assert taken_ports("api", [("127.0.0.1", port)]) is None  # closed: free again


def test_log_tail_gives_the_last_lines(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("".join(f"line {n}\n" for n in range(100)))
    assert log_tail(log, 3) == "line 97\nline 98\nline 99"
    assert log_tail(tmp_path / "missing.log").startswith("(no log at")
