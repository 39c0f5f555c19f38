"""Logs as JSON lines. Callers pass structured `fields`; bodies, tokens and PII are never given to it."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}))
        if request_id := getattr(record, "request_id", None):
            line["request_id"] = request_id
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class _LineupHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Marks the handler this module installs, so configuring twice replaces it and leaves others alone."""


def configure_logging(level: str) -> None:
    handler = _LineupHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    # Only our own handler is replaced: a host's handlers (pytest's capture, an APM agent) keep receiving records.
    root.handlers[:] = [h for h in root.handlers if not isinstance(h, _LineupHandler)] + [handler]
    root.setLevel(level.upper())
    for noisy in ("uvicorn.access", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
