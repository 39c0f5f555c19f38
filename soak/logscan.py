"""The errors the processes logged during the soak, counted: Lineup's JSON records at ERROR or above, by service,
message and the exception's last line (what failed, with no request data)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

SERVICES = ("api", "worker-1", "worker-2")
SEVERE = ("ERROR", "CRITICAL")


def _record(line: str) -> dict[str, object] | None:
    if not line.startswith("{"):
        return None  # uvicorn's own lines and the SDK's core log are not Lineup's records
    try:
        found = json.loads(line)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def logged_errors(logs: Path) -> dict[str, int]:
    """ "<service>: <message> (<exception's last line>)" → how many times."""
    counted: Counter[str] = Counter()
    for service in SERVICES:
        path = logs / f"{service}.log"
        if not path.exists():
            continue
        with open(path, errors="replace") as log:
            for line in log:
                record = _record(line)
                if record is None or record.get("level") not in SEVERE:
                    continue
                exc = str(record.get("exc") or "").strip().splitlines()
                cause = f" ({exc[-1][:160]})" if exc else ""
                counted[f"{service}: {record.get('msg')}{cause}"] += 1
    return dict(counted.most_common())
