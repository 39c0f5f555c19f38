"""Reading the console's overview as its tests check it: each chart's figures table (`data-figures`) as rows of
cell texts, the stuck groups, and the statements a page costs (counted on the engine)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from typing import Any

from sqlalchemy import event

from models.db import Database


class _Tables(HTMLParser):
    """Every table (or list) with a `data-figures` or `data-error` row, as rows of stripped cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._current: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag in ("table", "dl") and named.get("data-figures"):
            self._current = str(named["data-figures"])
            self.tables[self._current] = []
        elif tag == "tr" and self._current is not None:
            self._row = []
        elif tag in ("td", "th", "dd") and self._current is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "dd") and self._cell is not None:
            text = " ".join("".join(self._cell).split())
            if self._row is not None:
                self._row.append(text)
            elif self._current is not None:  # a <dl>: one row per value
                self.tables[self._current].append([text])
            self._cell = None
        elif tag == "tr" and self._row is not None and self._current is not None:
            self.tables[self._current].append(self._row)
            self._row = None
        elif tag in ("table", "dl"):
            self._current = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def figures(page: str) -> dict[str, list[list[str]]]:
    """The page's figures tables by their `data-figures` name, header row first."""
    parser = _Tables()
    parser.feed(page)
    return parser.tables


def hourly(rows: list[list[str]]) -> dict[str, list[int]]:
    """An hourly chart's table as {hour: counts}, the hours with any."""
    return {row[0]: [int(cell) for cell in row[1:]] for row in rows[1:] if any(cell != "0" for cell in row[1:])}


@contextmanager
def statements(db: Database) -> Iterator[list[str]]:
    """The SQL statements run on `db` within the block."""
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    engine = db.engine or (db.async_engine.sync_engine if db.async_engine else None)
    assert engine is not None
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)
