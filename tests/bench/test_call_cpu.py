"""T1's steady row (issue 36): the CPU a call costs the API's own thread, Lineup's and the floor's, taking turns in
the bench's process; and the bench's `--stacks`, with which a bisect runs the one stack it needs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bench import call_cpu
from bench.options import parse
from bench.shared_floor import DIR_VARIABLE
from models.settings import get_settings

# A stand-in for ../shared/bench's floor_app.py with its interface: tokens written to FLOOR_TOKENS on start (FLOOR_N
# of them), each /agent call answered with the next one.
STAND_IN = """
import os, secrets
from contextlib import asynccontextmanager
from fastapi import FastAPI, Request

@asynccontextmanager
async def lifespan(_):
    tokens = [secrets.token_hex(8) for _ in range(int(os.environ["FLOOR_N"]))]
    with open(os.environ["FLOOR_TOKENS"], "w") as out:
        out.write("\\n".join(tokens) + "\\n")
    yield

app = FastAPI(lifespan=lifespan)

@app.post("/agent")
async def agent(request: Request):
    assert request.headers["token"]
    return {"msg_code": "RESTAPI000", "msg": "Success", "token": secrets.token_hex(8)}
"""


def test_stacks_picks_the_stacks_a_run_starts() -> None:
    chosen = parse(["--only", "T1", "--stacks", "postgresql-1x1"])
    assert chosen.runs("postgresql-1x1") and not chosen.runs("sqlite-1x1")
    assert parse(["--only", "T1"]).runs("sqlite-1x1")  # none named: every stack


async def test_the_floor_and_lineup_take_turns_and_the_bench_keeps_its_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    floor = tmp_path / "floor"
    floor.mkdir()
    (floor / "floor_app.py").write_text(STAND_IN)
    monkeypatch.setenv(DIR_VARIABLE, str(floor))
    monkeypatch.setenv("LINEUP_DATA_DIR", str(tmp_path / "bench-data"))
    get_settings.cache_clear()
    handlers = logging.getLogger().handlers[:]
    found = await call_cpu.both("sqlite", "", 50)
    assert set(found) == {"client", "floor", "lineup"}
    for measured in found.values():
        assert measured.ok == measured.calls == 50 and measured.cpu_ms > 0
    # Lineup's chain ran on its own database, and the bench's own settings are back (its report's place), with its
    # own log handlers (Lineup's app installed one on a file that is gone now).
    assert get_settings().data_dir == tmp_path / "bench-data"
    assert logging.getLogger().handlers == handlers
    get_settings.cache_clear()
