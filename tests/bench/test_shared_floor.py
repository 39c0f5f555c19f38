"""T1's baseline is ../shared/bench's floor, started as its README says: found beside the repository or where
BENCH_FLOOR_DIR points, its tokens chained as wrk chains them, and, when it is absent, a row that says so and no
verdict for Lineup's call."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bench import bodies
from bench.options import CONNECTIONS
from bench.ports import free_port
from bench.postgres import reachable
from bench.report import table
from bench.shared_floor import DIR_VARIABLE, TOKENS, floor_dir, missing, shared_floor
from bench.stack import REPO, Stack, StackSpec
from bench.stats import Figure, Goal

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"


def test_it_is_looked_for_beside_the_repository_unless_told(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(DIR_VARIABLE, raising=False)
    assert floor_dir() == REPO.parent / "shared" / "bench"
    monkeypatch.setenv(DIR_VARIABLE, str(tmp_path))
    assert floor_dir() == tmp_path
    why = missing(tmp_path)
    assert why is not None and why.startswith("not measured: no floor_app.py in") and DIR_VARIABLE in why


def test_without_the_floor_lineups_call_has_no_verdict(tmp_path: Path) -> None:
    why = missing(tmp_path)
    assert why is not None
    floor = Figure("T1.s.shared_floor", "T1", "shared floor (baseline)", "/s", "req", note=why)
    call = Figure("T1.s.update_location_coordinate", "T1", "update_location_coordinate", "/s", "req", value=800.0)
    call.against, call.goal = floor.key, Goal("ratio", ">=", 0.5)
    rows = table([floor, call], []).splitlines()
    assert next(r for r in rows if "shared floor" in r).rstrip().endswith("NOT MEASURED")
    assert next(r for r in rows if "update_location_coordinate" in r).rstrip().endswith("NO BASELINE")


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest) -> str:
    if not (floor_dir() / "floor_app.py").is_file():
        pytest.skip(f"no shared floor at {floor_dir()}")
    if request.param == "postgresql" and (problem := await reachable(ADMIN_URL)):
        pytest.skip(f"PostgreSQL unreachable: {problem}")
    return str(request.param)


async def test_its_tokens_chain_as_wrk_chains_them(database: str, tmp_path: Path) -> None:
    spec = StackSpec("sqlite" if database == "sqlite" else "postgresql")
    stack = Stack(spec, tmp_path, {}, pg_admin_url=ADMIN_URL if database == "postgresql" else "")
    async with shared_floor(stack, floor_dir(), free_port()) as floor, httpx.AsyncClient(base_url=floor.url) as http:
        assert [len(chain) for chain in floor.chains] == [CONNECTIONS] * (TOKENS // CONNECTIONS)
        token = first = floor.chains[1][0]
        for _ in range(3):
            answer = (await http.post("/agent", json=bodies.UPDATE_LOCATION, headers={"token": token})).json()
            assert answer["msg_code"] == "RESTAPI000" and answer["token"] != token, answer
            token = answer["token"]
        replayed = (await http.post("/agent", json=bodies.UPDATE_LOCATION, headers={"token": first})).json()
        assert replayed["msg_code"] == "RESTAPI001"
