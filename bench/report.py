"""The table `make bench` prints, and the same as JSON under `$LINEUP_DATA_DIR/bench/`."""

from __future__ import annotations

import dataclasses
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.stats import Figure

NOTE_CHARS = 400  # the JSON keeps the whole note
COLUMNS = ("ID", "measurement", "value", "p50 ms", "p99 ms", "n", "err", "other", "ratio", "goal", "verdict")


def ratio(figure: Figure, by_key: dict[str, Figure]) -> float | None:
    baseline = by_key.get(figure.against or "")
    if figure.value is None or baseline is None or not baseline.value:
        return None
    return figure.value / baseline.value


def verdict(figure: Figure, by_key: dict[str, Figure]) -> str:
    if figure.value is None:
        return "NOT MEASURED" if figure.note.startswith("not measured") else "FAILED"
    if figure.goal is None:
        return ""
    if figure.goal.on == "ratio" and ratio(figure, by_key) is None:
        return "NO BASELINE"  # its baseline row says why (not measured, or failed)
    met = figure.goal.met(figure.value, ratio(figure, by_key))
    return "FAILED" if met is None else "MET" if met else "NOT MET"


def shown(value: float | None, unit: str, per: str = "") -> str:
    if value is None:
        return "—"
    if unit == "ms":
        return f"{value:,.1f} ms"
    if unit == "/s":
        return f"{value:,.1f} {per}/s"
    return f"{value:,.0f}" if float(value).is_integer() or abs(value) >= 1000 else f"{value:,.2f}"


def milliseconds(value: float | None) -> str:
    return f"{value:,.1f}" if value is not None else ""


def row(figure: Figure, by_key: dict[str, Figure]) -> tuple[str, ...]:
    found = ratio(figure, by_key)
    return (
        figure.target,
        figure.label,
        shown(figure.value, figure.unit, figure.per),
        milliseconds(figure.p50_ms) if figure.unit != "ms" else "",
        milliseconds(figure.p99_ms),
        str(figure.count) if figure.count else "",
        str(figure.errors) if figure.errors else "",
        f"{figure.other_cores:.2f}" if figure.other_cores is not None else "",
        f"{found:.2f}" if found is not None else "",
        str(figure.goal) if figure.goal else "",
        verdict(figure, by_key),
    )


def table(figures: list[Figure], header: list[str]) -> str:
    by_key = {figure.key: figure for figure in figures}
    rows = [COLUMNS, *(row(figure, by_key) for figure in figures)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    right = {2, 3, 4, 5, 6, 7, 8}  # numbers line up on the right

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    rule = "-" * len(line(COLUMNS))
    noted = [f for f in figures if f.note and not f.note.startswith("not measured yet")]
    notes = [f"  {f.key}: {f.note[:NOTE_CHARS]}" for f in noted]
    body = [line(r) for r in rows[1:]]
    footer = [
        "value: median of sequential rounds (ms), or completions per second; p50/p99: latency of each call",
        "ratio: value / its baseline row (same target, same run); n: samples or completions; err: failures",
        "other: CPU cores other processes (not the bench, not its stack) used during that scenario, of "
        f"{os.cpu_count()}: well above 0 means the figure was taken on a busy machine",
    ]
    return "\n".join([*header, rule, line(COLUMNS), rule, *body, rule, *footer, *(["notes:", *notes] if notes else [])])


def as_json(figure: Figure, by_key: dict[str, Figure]) -> dict[str, Any]:
    data = dataclasses.asdict(figure)
    data["goal"] = str(figure.goal) if figure.goal else None
    data["ratio"] = ratio(figure, by_key)
    data["verdict"] = verdict(figure, by_key)
    return data


def write_json(directory: Path, started: datetime, meta: dict[str, Any], figures: list[Figure], text: str) -> Path:
    by_key = {figure.key: figure for figure in figures}
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"bench-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    document = {**meta, "figures": [as_json(f, by_key) for f in figures], "table": text}
    path.write_text(json.dumps(document, indent=2, default=str) + "\n")
    return path
