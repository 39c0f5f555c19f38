"""Works around temporalio/sdk-python#300: after a Temporal server shuts down, the interpreter sometimes
aborts at exit (PyGILState_Release, code 134/139) although every test passed. pytest's real exit status is
kept and the process leaves with it through os._exit, after every report is written — never ignoring it."""

from __future__ import annotations

import os
import sys

import pytest

_status: dict[str, int] = {}


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _status["code"] = int(session.exitstatus)  # as the hooks before this one left it (a guard may fail the run)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    if "code" in _status:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_status["code"])
