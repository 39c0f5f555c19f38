"""bench.phases gives each profiled sample to the phase of the request it was taken in: SQL to whoever asked for
it (the token's claim runs inside the unit of work's commit), the transaction's own steps to the transaction,
SQLAlchemy and the driver as layers under a phase, the event loop's wait to nobody. And bench.profile_call makes
the section from a real run of the API."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.phases import (
    ASGI,
    GREENLET_SQL,
    IDLE,
    OTHER_SQL,
    PHASES,
    REPO,
    TOKEN,
    TRANSACTION,
    breakdown,
    classify,
    markdown,
    replace_section,
)

SITE = "/venv/lib/python3.11/site-packages"
STDLIB = "/usr/lib/python3.11"


def phase(starting: str) -> str:
    return next(name for name, _ in PHASES if name.startswith(starting))


def frame(function: str, path: str) -> str:
    """A frame as pyinstrument records it: function, file and line, NUL-separated."""
    return f"{function}\x00{path}\x001"


def lineup(function: str, path: str) -> str:
    return frame(function, f"{REPO}/{path}")


LOOP = [frame("_run_once", f"{STDLIB}/asyncio/base_events.py"), frame("run_asgi", f"{SITE}/uvicorn/h11_impl.py")]
DISPATCH = [*LOOP, lineup("__call__", "api/edge.py"), lineup("run", "api/dispatch.py")]
EXECUTE = [frame("execute", f"{SITE}/sqlalchemy/engine/base.py"), frame("Cursor.execute", "<built-in>")]


def test_the_token_claimed_in_the_commit_is_the_tokens_sql() -> None:
    stack = [
        *DISPATCH,
        lineup("commit", "models/db.py"),
        lineup("run", "api/dispatch.py"),
        lineup("claim", "models/auth.py"),
        lineup("run", "models/db.py"),
        lineup("_core", "models/db.py"),
        *EXECUTE,
    ]
    assert classify(stack) == (TOKEN, "driver", "models/auth.py:claim")
    assert classify(stack[:-1]) == (TOKEN, "SQLAlchemy", "models/auth.py:claim")


def test_the_commit_itself_is_the_transactions() -> None:
    stack = [*DISPATCH, lineup("commit", "models/db.py"), lineup("commit", "models/db.py")]
    committed = [*stack, frame("Connection.commit", "<built-in>")]
    assert classify(committed) == (TRANSACTION, "driver", "models/db.py:commit")


def test_a_handlers_statement_is_other_sql() -> None:
    stack = [*DISPATCH, lineup("update_location_coordinate", "api/agents.py")]
    assert classify([*stack, lineup("run", "models/db.py"), *EXECUTE])[:2] == (OTHER_SQL, "driver")
    assert classify(stack)[0] == phase("the handler")


def test_on_postgresql_a_statement_awaits_through_asyncio_for_its_caller() -> None:
    """asyncpg is awaited through asyncio under the frame that asked; in SQLAlchemy's greenlet that frame is gone."""
    asked = [*DISPATCH, lineup("present", "models/auth.py"), lineup("rows", "models/db.py")]
    awaited = [
        frame("greenlet_spawn", f"{SITE}/sqlalchemy/util/concurrency.py"),
        frame("wait_for", f"{STDLIB}/asyncio/tasks.py"),
    ]
    assert classify([*asked, *awaited])[:2] == (TOKEN, "SQLAlchemy")
    sent = [frame("__do_execute", f"{SITE}/asyncpg/prepared_stmt.py"), frame("socket.send", "<built-in>")]
    assert classify([*asked, *sent])[:2] == (TOKEN, "driver")
    answered = [frame("send", f"{SITE}/uvicorn/protocols/http/h11_impl.py"), frame("socket.send", "<built-in>")]
    assert classify([*DISPATCH, *answered])[0] == ASGI
    in_greenlet = [frame("MainThread", "<thread>"), *EXECUTE]
    assert classify(in_greenlet)[:2] == (GREENLET_SQL, "driver")
    assert classify([*LOOP[:1], frame("_run", f"{STDLIB}/asyncio/events.py")])[0] == ASGI


@pytest.mark.parametrize(
    ("leaf", "named"),
    [
        (frame("loads", f"{STDLIB}/json/__init__.py"), "JSON"),
        (frame("validate_python", f"{SITE}/pydantic/main.py"), "validation"),
        (frame("info", f"{STDLIB}/logging/__init__.py"), "the edge middleware"),
        (frame("send", f"{SITE}/uvicorn/protocols/http/h11_impl.py"), "ASGI server"),
        (lineup("run", "api/dispatch.py"), "the dispatcher"),
    ],
)
def test_the_innermost_frame_that_names_a_phase_wins(leaf: str, named: str) -> None:
    assert classify([*DISPATCH, leaf])[0] == phase(named)


def test_the_event_loops_wait_is_idle_and_left_out() -> None:
    idle = [*LOOP[:1], frame("epoll.poll", "<built-in>")]
    found = breakdown([(idle, 0.5), ([*DISPATCH, frame("loads", f"{STDLIB}/json/decoder.py")], 0.25)])
    assert classify(idle)[0] == IDLE
    assert (found.idle, found.busy) == (0.5, 0.25)
    text = markdown(found, 10, "### heading", ["how it was made"])
    assert "| JSON (encoding and decoding) | 100.0 % | 25.000 |" in text
    assert "Idle (the event loop waiting on sockets): 66.7 %" in text


def test_the_section_replaces_its_markers_or_is_added(tmp_path: Path) -> None:
    document = tmp_path / "performance.md"
    document.write_text("# Performance\n\nprose\n")
    replace_section(document, "profile-sqlite", "first")
    replace_section(document, "profile-sqlite", "second")
    expected = "# Performance\n\nprose\n\n<!-- profile-sqlite -->\nsecond\n<!-- /profile-sqlite -->\n"
    assert document.read_text() == expected


@pytest.mark.slow
def test_a_profiled_run_of_the_api_gives_each_phase_its_share() -> None:
    """A short run of the real thing (its own process: it serves the API and sets the environment)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.profile_call", "--calls", "60", "--warmup", "20", "--connections", "4"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "RESTAPI000, 0 errors)" in done.stdout, done.stdout
    for phase in (TOKEN, TRANSACTION, OTHER_SQL):
        row = next(line for line in done.stdout.splitlines() if line.startswith(f"| {phase} |"))
        assert not row.split("|")[2].strip().startswith("0.0 %"), row
