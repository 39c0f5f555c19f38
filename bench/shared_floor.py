"""T1's baseline: the floor of `../shared/bench` (floor_app.py), served exactly as its README says —
`uvicorn floor_app:app --no-access-log` from that folder, FLOOR_DB sqlite or postgres — and chained with the
same wrk load as Lineup. The bench only starts it and reads its token file: nothing of Lineup runs inside it,
and nothing of it is copied here, so the reference stays the one the issue measured.

The folder is found beside the repository (REPO.parent / "shared" / "bench") or where BENCH_FLOOR_DIR points.
When it is absent, T1's floor row says so and Lineup's row has no verdict: no other app stands in for it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench import postgres
from bench.options import CONNECTIONS
from bench.processes import CHILDREN, terminate
from bench.stack import REPO, Stack

DIR_VARIABLE = "BENCH_FLOOR_DIR"
APP = "floor_app:app"
# Two chains of tokens from one start: the warm-up's and the measured run's (wrk keeps the last tokens it was
# given, so a run cannot hand its chain on). The README's FLOOR_N=32 is one run's worth; the token table's few
# more rows change nothing a call does.
TOKENS = 2 * CONNECTIONS
READY_SECONDS = 30.0


def floor_dir() -> Path:
    given = os.environ.get(DIR_VARIABLE, "").strip()
    return Path(given).expanduser().resolve() if given else REPO.parent / "shared" / "bench"


def missing(directory: Path) -> str | None:
    """Why the shared floor cannot run from `directory`, or None when it can."""
    if (directory / "floor_app.py").is_file():
        return None
    return (
        f"not measured: no floor_app.py in {directory} (the shared floor is looked for at ../shared/bench beside "
        f"the repository, or where {DIR_VARIABLE} points); Lineup's update_location_coordinate has no verdict"
    )


def floor_env(database: str, pg_url: str, tokens_file: Path, temp_dir: Path) -> dict[str, str]:
    """The README's variables on the bench's own environment, without Lineup's settings (the floor reads none).
    TMPDIR: its SQLite file is made with mkdtemp, so it lands in the stack's data dir and goes with it."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("LINEUP_")}
    env |= {"FLOOR_N": str(TOKENS), "FLOOR_TOKENS": str(tokens_file), "TMPDIR": str(temp_dir)}
    if database == "postgresql":
        return env | {"FLOOR_DB": "postgres", "FLOOR_PG": pg_url}
    return env | {"FLOOR_DB": "sqlite"}


def floor_command(port: int) -> list[str]:
    """The README's command line, with the bench's port; the uvicorn Lineup is served by (this interpreter's)."""
    return [sys.executable, "-m", "uvicorn", APP, "--host", "127.0.0.1", "--port", str(port), "--no-access-log"]


@dataclass(frozen=True)
class Floor:
    """The floor under way: its URL, its uvicorn process and the token chains it wrote on start."""

    url: str
    pid: int
    chains: list[list[str]]
    database: str  # "its own SQLite file" or the PostgreSQL database it was given


def _written(tokens_file: Path) -> list[str] | None:
    """The tokens the floor wrote, once all of them are there."""
    try:
        found = tokens_file.read_text().split()
    except OSError:
        return None
    return found if len(found) >= TOKENS else None


async def _started(process: subprocess.Popen[bytes], tokens_file: Path, url: str) -> list[str]:
    """Its tokens once written, and once it answers (an empty body: refused without a token spent)."""
    deadline = time.monotonic() + READY_SECONDS
    async with httpx.AsyncClient(base_url=url) as http:
        while time.monotonic() < deadline and process.poll() is None:
            if (tokens := _written(tokens_file)) is not None:
                try:
                    if (await http.post("/agent", json={})).status_code == 200:
                        return tokens
                except httpx.HTTPError:
                    pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"the shared floor did not start within {READY_SECONDS:.0f} s (see {tokens_file.parent})")


@asynccontextmanager
async def shared_floor(stack: Stack, directory: Path, port: int) -> AsyncIterator[Floor]:
    """The floor served from `directory` on `port`, on SQLite (its own file) or on a PostgreSQL database of its
    own on the stack's server (its tables are dropped and made on start); stopped and dropped however it ends."""
    database = stack.spec.database
    pg_name = await postgres.create_database(stack.pg_admin_url) if database == "postgresql" else ""
    pg_url = postgres.database_url(stack.pg_admin_url, pg_name) if pg_name else ""
    work = stack.data_dir / "shared-floor"
    work.mkdir(exist_ok=True)
    tokens_file = work / "tokens.txt"
    tokens_file.unlink(missing_ok=True)
    env = floor_env(database, pg_url, tokens_file, work)
    process = CHILDREN.spawn(floor_command(port), env=env, log=work / "floor.log", cwd=directory)
    url = f"http://127.0.0.1:{port}"
    try:
        tokens = await _started(process, tokens_file, url)
        chains = [tokens[start : start + CONNECTIONS] for start in range(0, TOKENS, CONNECTIONS)]
        where = f"PostgreSQL database {pg_name}" if pg_name else "its own SQLite file"
        yield Floor(url, process.pid, chains, where)
    finally:
        await asyncio.to_thread(terminate, process, 15.0)
        if pg_name:
            await postgres.drop_database(stack.pg_admin_url, pg_name)
