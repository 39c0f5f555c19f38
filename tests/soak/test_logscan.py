"""The soak counts what the API and the workers logged at ERROR, by message and the exception's last line."""

from __future__ import annotations

import json
from pathlib import Path

from soak.logscan import logged_errors


def test_error_records_are_counted_by_service_message_and_cause(tmp_path: Path):
    failure = {"level": "ERROR", "msg": "unexpected failure", "exc": "Traceback …\nValueError: boom"}
    (tmp_path / "api.log").write_text(
        "INFO:     Started server process [1]\n"  # uvicorn's own line: not a record
        + json.dumps(failure)
        + "\n"
        + json.dumps(failure)
        + "\n"
        + json.dumps({"level": "INFO", "msg": "request"})
        + "\n"
        + "{not json\n"
    )
    (tmp_path / "worker-1.log").write_text(json.dumps({"level": "CRITICAL", "msg": "worker died"}) + "\n")
    assert logged_errors(tmp_path) == {
        "api: unexpected failure (ValueError: boom)": 2,
        "worker-1: worker died": 1,
    }
