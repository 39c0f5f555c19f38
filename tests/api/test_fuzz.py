"""A seeded schemathesis run against the OpenAPI document, over real HTTP (uvicorn): every generated request,
each with a fresh token and a `source` the schema names, is answered by the envelope and never by a 5xx.
Temporal and the outside systems are unreachable here, so their refusals are part of what is checked.

It runs on SQLite at length, and briefly on PostgreSQL (issue 35, finding 4): SQLite stores a NUL, so only
PostgreSQL's refusal of one showed the 500 a `\\u0000` in a name caused; NUL is in the run's alphabet."""

from __future__ import annotations

import asyncio
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, Phase, settings
from sqlmodel import select

from api.main import create_app
from bench.ports import free_port
from models import auth
from models.auth import ApiUser, Vendor
from models.db import Database
from models.settings import Settings
from models.types import NUL_TEXT, text_problems
from tests.support.app import make_settings
from tests.support.databases import sqlite_template

CASES_PER_OPERATION = 150  # 16 operations: a little over 2,000 requests in all
POSTGRES_CASES_PER_OPERATION = 6  # about 100 more, a few seconds: what only PostgreSQL refuses to store
TOKENS = 2_600
POSTGRES_TOKENS = 400
UNREACHABLE = "http://127.0.0.1:9"


def _document() -> dict[str, Any]:
    directory = Path(tempfile.mkdtemp(prefix="lineup-openapi-"))
    return create_app(make_settings(directory, f"sqlite+aiosqlite:///{directory}/lineup.db")).openapi()


schema = schemathesis.openapi.from_dict(_document())
schema.config.generation.update(allow_x00=True)  # explicit: schemathesis' default, and the point of the PostgreSQL run


@dataclass
class Sent:
    """What a run sent (module-wide: under xdist the counting test may run where the fuzzing did not)."""

    requests: list[int] = field(default_factory=list)  # one entry per request answered
    with_nul: list[int] = field(default_factory=list)  # one entry per request whose body held a NUL


SQLITE_RUN, POSTGRES_RUN = Sent(), Sent()


@dataclass
class Served:
    """The API on a port, a supply of fresh tokens, and what the run sent it."""

    base_url: str
    supply: Iterator[str]
    sent: Sent


async def _mint(settings: Settings, count: int) -> list[str]:
    """Tokens of the demo API user, written straight to the table (no argon2 per request)."""
    db = Database(settings)
    try:
        async with db.transaction() as transaction:
            session = transaction
            user = (await session.exec(select(ApiUser).join(Vendor).where(Vendor.code == "DEMO"))).first()
            assert user is not None and user.id is not None
            owner = auth.TokenOwner(vendor_id=user.vendor_id, api_user_id=user.id, login_log_id=None)
            return [await auth.issue(transaction, owner, 3600) for _ in range(count)]
    finally:
        await db.dispose()


@contextmanager
def serving(data_dir: Path, url: str, tokens: int, sent: Sent) -> Iterator[Served]:
    """The API on a free port over the database at `url`, every outside system unreachable."""
    app_settings = make_settings(
        data_dir,
        url,
        carrier_base_url=f"{UNREACHABLE}/carrier",
        nlad_base_url=f"{UNREACHABLE}/nlad",
        payments_base_url=f"{UNREACHABLE}/payments",
        smtp_port=9,
    )
    supply = iter(asyncio.run(_mint(app_settings, tokens)))
    port = free_port()
    config = uvicorn.Config(create_app(app_settings), host="127.0.0.1", port=port, log_level="warning")
    uvicorn_server = uvicorn.Server(config)
    thread = threading.Thread(target=uvicorn_server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uvicorn_server.started:
        assert time.monotonic() < deadline, "the API did not start"
        time.sleep(0.05)
    yield Served(f"http://127.0.0.1:{port}", supply, sent)
    uvicorn_server.should_exit = True
    thread.join(15)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """On a copy of the seeded SQLite template."""
    template = sqlite_template(tmp_path_factory.mktemp("fuzz-template"))
    with serving(tmp_path_factory.mktemp("fuzz"), f"sqlite+aiosqlite:///{template}", TOKENS, SQLITE_RUN) as served:
        yield served


@pytest.fixture(scope="module")
def postgres_server(tmp_path_factory: pytest.TempPathFactory, postgres_url: str) -> Iterator[Served]:
    """On the session's PostgreSQL database (its rows: tokens of the demo API user, refusals' audit rows)."""
    with serving(tmp_path_factory.mktemp("fuzz-postgres"), postgres_url, POSTGRES_TOKENS, POSTGRES_RUN) as served:
        yield served


def answered_by_the_envelope(case: Any, served: Served) -> None:
    if case.headers is not None and "token" in case.headers:
        case.headers["token"] = next(served.supply)
    response = case.call(base_url=served.base_url)
    served.sent.requests.append(1)
    if any(problem == NUL_TEXT for _, problem in text_problems(case.body)):
        served.sent.with_nul.append(1)
    check(case, response)


def check(case: Any, response: Any) -> None:
    if case.path == "/readyz":  # not ready (no Temporal here) is its 503, by design
        assert response.status_code in (200, 503), response.text
    else:
        assert response.status_code < 500, response.text
    if response.headers.get("content-type", [""])[0].startswith("text/"):  # /metrics
        return
    envelope = response.json()
    assert isinstance(envelope, dict) and {"msg_code", "msg"} <= set(envelope), response.text
    assert "detail" not in envelope, response.text


FUZZ = settings(
    derandomize=True, deadline=None, database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck)
)


@schema.parametrize()
@settings(FUZZ, max_examples=CASES_PER_OPERATION)
def test_every_generated_request_is_answered_by_the_envelope(case: Any, server: Served) -> None:
    answered_by_the_envelope(case, server)


@schema.parametrize()
@settings(FUZZ, max_examples=POSTGRES_CASES_PER_OPERATION)
def test_every_generated_request_is_answered_by_the_envelope_on_postgresql(case: Any, postgres_server: Served) -> None:
    """Each generated body is sent again with a NUL in one of its strings (another one each time): the alphabet
    alone puts one in few bodies, as most fields of the document have a pattern."""
    answered_by_the_envelope(case, postgres_server)
    if isinstance(case.body, dict) and (places := list(strings(case.body))):
        case.body = with_a_nul(case.body, places[len(postgres_server.sent.requests) % len(places)])
        answered_by_the_envelope(case, postgres_server)


Place = tuple[str | int, ...]


def strings(value: object, place: Place = ()) -> Iterator[Place]:
    """Where `value` holds a string (its keys aside)."""
    if isinstance(value, str):
        yield place
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, (*place, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, (*place, index))


def with_a_nul(value: Any, place: Place) -> Any:
    """A copy of `value` with a NUL in the middle of the string at `place`."""
    if not place:
        middle = len(value) // 2
        return f"{value[:middle]}\x00{value[middle:]}"
    head, *rest = place
    if isinstance(value, dict):
        return {**value, head: with_a_nul(value[head], tuple(rest))}
    assert isinstance(head, int)
    return [with_a_nul(item, tuple(rest)) if index == head else item for index, item in enumerate(value)]


def test_the_run_fuzzed_at_least_2000_requests() -> None:
    if not SQLITE_RUN.requests:
        pytest.skip("run with the fuzz test above")
    assert sum(SQLITE_RUN.requests) >= 2_000, f"only {sum(SQLITE_RUN.requests)} requests were generated"


def test_the_postgresql_run_sent_nul_characters() -> None:
    if not POSTGRES_RUN.requests:
        pytest.skip("run with the PostgreSQL fuzz test above")
    assert sum(POSTGRES_RUN.with_nul) >= 80, f"only {sum(POSTGRES_RUN.with_nul)} of the bodies held a NUL"
