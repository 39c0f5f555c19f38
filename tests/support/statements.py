"""What the database is asked, counted through SQLAlchemy's public events on every engine of the process (the
API's and the worker's alike): each statement by its first word, and each commit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, event


@dataclass
class Seen:
    statements: list[str] = field(default_factory=list)  # first words, BEGIN and COMMIT included, in order
    texts: list[str] = field(default_factory=list)  # the statements themselves, for a failure's message
    engines: list[int] = field(default_factory=list)  # which engine ran each (the API's, the worker's)
    connections: set[int] = field(default_factory=set)

    @property
    def transactions(self) -> int:
        return self.statements.count("COMMIT")

    def work(self) -> list[str]:
        """The statements without the transactions' BEGIN and COMMIT."""
        return [word for word in self.statements if word not in ("BEGIN", "COMMIT")]

    def of(self, engine: object, *, others: bool = False) -> Seen:
        """What one engine ran (an Engine, or an asyncio engine's sync_engine), or with `others` the rest."""
        mine = [index for index, seen_by in enumerate(self.engines) if (seen_by == id(engine)) != others]
        return Seen([self.statements[i] for i in mine], [self.texts[i] for i in mine], [self.engines[i] for i in mine])

    def without(self, words: str) -> Seen:
        """Without the transactions (BEGIN to COMMIT on one engine) that ran a statement containing `words`: a
        background poll that is not the call's work."""
        groups: list[list[int]] = []
        for engine in set(self.engines):
            group: list[int] = []
            for index in (i for i, seen_by in enumerate(self.engines) if seen_by == engine):
                if self.statements[index] == "BEGIN" and group:  # the last one ended without a COMMIT
                    groups.append(group)
                    group = []
                group.append(index)
                if self.statements[index] == "COMMIT":
                    groups.append(group)
                    group = []
            groups.append(group)
        dropped = {index for group in groups if any(words in self.texts[i] for i in group) for index in group}
        kept = [index for index in range(len(self.texts)) if index not in dropped]
        return Seen([self.statements[i] for i in kept], [self.texts[i] for i in kept], [self.engines[i] for i in kept])


@contextmanager
def counted() -> Iterator[Seen]:
    seen = Seen()

    def before(connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.statements.append(statement.split()[0].upper())
        seen.texts.append(" ".join(statement.split())[:160])
        seen.engines.append(id(connection.engine))
        seen.connections.add(id(connection.connection.dbapi_connection))

    def begun(connection: Any) -> None:
        if connection.dialect.name != "sqlite":  # SQLite's BEGIN IMMEDIATE is a statement of its own
            seen.statements.append("BEGIN")
            seen.texts.append("BEGIN")
            seen.engines.append(id(connection.engine))

    def committed(connection: Any) -> None:
        seen.statements.append("COMMIT")
        seen.texts.append("COMMIT")
        seen.engines.append(id(connection.engine))

    listeners = (("before_cursor_execute", before), ("begin", begun), ("commit", committed))
    for name, listener in listeners:
        event.listen(Engine, name, listener)
    try:
        yield seen
    finally:
        for name, listener in listeners:
            event.remove(Engine, name, listener)
