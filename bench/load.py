"""Load from its own process: wrk with wrk_chain.lua (installed with apt when missing), else bench.loadgen."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bench.processes import CHILDREN
from bench.stack import REPO

Tool = Literal["wrk", "python"]
LUA = Path(__file__).with_name("wrk_chain.lua")
# The shared floor's load (../shared/bench/README.md: 32 connections chaining tokens, 2 threads, 15 s), for every
# T1 row alike: Lineup is judged against the floor under the very load the floor's figure was taken with.
WRK_THREADS = 2
TIMEOUT_SECONDS = 60  # wrk's default 2 s would drop the slow tail instead of measuring it
MARKER = "BENCH_RESULT "


@dataclass(frozen=True)
class LoadResult:
    """What the load generator saw: measured calls (RESTAPI000), failures, latency, re-authentications."""

    tool: Tool
    seconds: float
    requests: int
    ok: int
    failed: int
    reauth: int
    socket_errors: int
    timeouts: int
    p50_ms: float
    p99_ms: float
    max_ms: float

    @property
    def rate(self) -> float:
        return self.ok / self.seconds

    @property
    def errors(self) -> int:
        return self.failed + self.reauth + self.socket_errors + self.timeouts


def choose_tool(preferred: str) -> tuple[Tool, str]:
    """wrk if present or installable with apt (the bench runs as root on the dev box), else the fallback."""
    if preferred == "python":
        return "python", "asked for the Python load generator"
    if shutil.which("wrk"):
        return "wrk", "wrk found"
    if shutil.which("apt-get"):
        print("bench: wrk is missing; installing it with apt-get", flush=True)
        done = subprocess.run(
            ["apt-get", "install", "-y", "-q", "wrk"], capture_output=True, text=True, timeout=600, check=False
        )
        if done.returncode == 0 and shutil.which("wrk"):
            return "wrk", "wrk installed with apt-get"
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return "python", f"apt-get install wrk failed ({reason})"
    return "python", "no wrk and no apt-get"


@dataclass(frozen=True)
class Load:
    """One load run: `connections` connections posting `body` to `path`, each starting with its own token."""

    base_url: str
    path: str
    body: dict[str, Any]
    auth_body: dict[str, Any]
    tokens: list[str]
    seconds: float
    work_dir: Path
    requests: int = 0  # the Python load generator only: stop after this many requests (0: run `seconds`)

    def files(self) -> tuple[Path, Path, Path]:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        tokens, body, auth = (self.work_dir / name for name in ("tokens.txt", "body.json", "auth.json"))
        tokens.write_text("\n".join(self.tokens) + "\n")
        body.write_text(json.dumps(self.body))
        auth.write_text(json.dumps(self.auth_body))
        return tokens, body, auth


def command(load: Load, tool: Tool) -> list[str]:
    tokens, body, auth = load.files()
    connections = len(load.tokens)
    if tool == "wrk":
        if load.requests:
            raise ValueError("wrk runs for a time, not a number of requests: use the Python load generator")
        return [
            "wrk",
            f"-t{WRK_THREADS}",
            f"-c{connections}",
            f"-d{load.seconds:.0f}s",
            f"--timeout={TIMEOUT_SECONDS}s",
            "-s",
            str(LUA),
            load.base_url,
            "--",
            str(tokens),
            str(body),
            load.path,
            str(auth),
            str(connections // WRK_THREADS),
        ]
    return [
        sys.executable,
        "-m",
        "bench.loadgen",
        "--requests",
        str(load.requests),
        "--url",
        load.base_url,
        "--path",
        load.path,
        "--body",
        str(body),
        "--auth-body",
        str(auth),
        "--tokens",
        str(tokens),
        "--connections",
        str(connections),
        "--seconds",
        str(load.seconds),
    ]


def parse(tool: Tool, output: str) -> LoadResult:
    line = next((ln for ln in output.splitlines() if ln.startswith(MARKER)), None)
    if line is None:
        raise RuntimeError(f"{tool} printed no result:\n{output[-2000:]}")
    raw = json.loads(line.removeprefix(MARKER))
    return LoadResult(
        tool,
        raw["duration_us"] / 1e6,
        int(raw["requests"]),
        int(raw["ok"]),
        int(raw["failed"]),
        int(raw["reauth"]),
        int(raw["socket_errors"]),
        int(raw["timeouts"]),
        raw["p50_us"] / 1000,
        raw["p99_us"] / 1000,
        raw["max_us"] / 1000,
    )


async def run_load(load: Load, tool: Tool) -> LoadResult:
    if len(load.tokens) % WRK_THREADS:
        raise ValueError("connections must divide evenly among wrk's threads")
    process = await CHILDREN.spawn_async(command(load, tool), cwd=REPO)
    out, err = await asyncio.wait_for(process.communicate(), load.seconds + TIMEOUT_SECONDS + 30)
    if process.returncode != 0:
        raise RuntimeError(f"{tool} exited with {process.returncode}: {err.decode()[-2000:]}")
    return parse(tool, out.decode())
