"""One bench JSON, read by figure key and dotted path, every read recorded: what docs/capacity.md and
docs/performance.md's generated block (bench.capacity, bench.goals) are made of. A field the JSON lacks is a Drift,
never a guess."""

from __future__ import annotations

from typing import Any

SQLITE, PG, PORTS = "sqlite-1x1", "postgresql-1x1", "sqlite-1x1-ports"


class Drift(Exception):
    """The JSON lacks what the document reads: the bench and this generator no longer agree."""


class Bench:
    """One bench JSON, read by figure key (or "meta" for the run's own fields) and dotted path. Every read is
    recorded in `reads`, so a test can hold each one against what the bench writes."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.figures = {figure["key"]: figure for figure in document.get("figures", [])}
        self.reads: set[tuple[str, str]] = set()

    def __call__(self, key: str, path: str = "value") -> float:
        self.reads.add((key, path))
        found: Any = self.document if key == "meta" else self.figures.get(key)
        for part in path.split("."):
            found = found.get(part) if isinstance(found, dict) else None
        if not isinstance(found, int | float) or isinstance(found, bool):
            raise Drift(f"the bench JSON has no number at {key} {path}")
        return float(found)


def number(value: float) -> str:
    if value >= 100 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:,.2f}" if value >= 1 else f"{value:.3g}"


def source(key: str, path: str = "value") -> str:
    return f"`{key}` {path}" if path != "value" else f"`{key}`"
