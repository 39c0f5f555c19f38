"""The statements every authenticated call runs (the token read, its claim, the next token, the audit row, the
location), declared once as SQLAlchemy Core on the tables and run on the transaction's connection.

SQLAlchemy's execution of a statement costs more than the statement: about 40 µs of CPU beside SQLite's 6, and
on PostgreSQL 115 µs beside asyncpg's own 110 for the round trip. So each is compiled once per dialect and
handed to the driver (persistence.drivers), its values converted by the columns' own types both ways, in the
transaction the connection holds. A driver not run there is left to SQLAlchemy."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlalchemy import Column, Insert, Table
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Executable
from sqlalchemy.sql.base import ReadOnlyColumnCollection
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement, ColumnElement
from sqlmodel import SQLModel

from persistence.drivers import Outcome, driver_of

Values = Mapping[str, object]
Convert = Callable[[object], object]
R = TypeVar("R", bound=tuple[object, ...])


# A table's columns as SQLAlchemy types them (its default names them with Any).
Columns = ReadOnlyColumnCollection[str, Column[object]]


def table(name: str) -> Table[Columns]:
    """A mapped table by its name (every table module is imported with persistence.engine)."""
    return SQLModel.metadata.tables[name]


@dataclass(frozen=True)
class _Compiled:
    """One statement in one dialect's SQL: where each value goes and how it is stored, how each column reads."""

    sql: str
    names: tuple[str, ...]  # the value that fills each placeholder, in order
    binds: tuple[Convert | None, ...]
    reads: tuple[Convert | None, ...]

    @classmethod
    def of(cls, statement: Executable, dialect: Dialect, keys: Sequence[str]) -> _Compiled:
        # An INSERT without .values() takes its columns from the keys given.
        assert isinstance(statement, ClauseElement)
        compiled = statement.compile(dialect=dialect, column_keys=list(keys) if isinstance(statement, Insert) else None)
        assert isinstance(compiled, SQLCompiler) and compiled.positiontup is not None
        missing = [name for name in compiled.positiontup if name not in keys]
        if missing:  # a Python-side column default would be computed by SQLAlchemy's execution, bypassed here
            raise ValueError(f"{compiled.string!r} needs values for {missing}")
        names = tuple(compiled.positiontup)
        # Each type as the dialect stores it (a datetime as SQLAlchemy's text form on SQLite, not the driver's).
        binds = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)
        columns: Sequence[ColumnElement[object]] = getattr(statement, "selected_columns", ())
        reads = tuple(column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns)
        return cls(compiled.string, names, binds, reads)

    def parameters(self, values: Values) -> tuple[object, ...]:
        return tuple(
            value if bind is None else bind(value)
            for value, bind in zip((values[name] for name in self.names), self.binds, strict=True)
        )

    def row(self, raw: tuple[object, ...]) -> tuple[object, ...]:
        """The driver's row, its values as the columns' types read them."""
        return tuple(value if read is None else read(value) for value, read in zip(raw, self.reads, strict=True))


class _Statement:
    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._compiled: dict[tuple[str, ...], _Compiled] = {}

    async def _run(self, connection: AsyncConnection, values: Values, *, reads: bool) -> Outcome | None:
        """Runs on the driver (None when it is not one run there)."""
        driver = driver_of(connection)
        if driver is None:
            return None
        keys = tuple(values)
        compiled = self._compiled.get((connection.dialect.name, *keys))
        if compiled is None:
            compiled = _Compiled.of(self.statement, connection.dialect, keys)
            self._compiled[(connection.dialect.name, *keys)] = compiled
        outcome = await driver.run(compiled.sql, compiled.parameters(values), reads=reads)
        return Outcome([compiled.row(row) for row in outcome.rows], outcome.count) if reads else outcome


class Write(_Statement):
    """An INSERT, UPDATE or DELETE run on the transaction's connection."""

    async def run(self, connection: AsyncConnection, values: Values) -> int:
        """The rows it touched."""
        outcome = await self._run(connection, values, reads=False)
        if outcome is None:
            return (await connection.execute(self.statement, dict(values))).rowcount
        return outcome.count


class Read(_Statement, Generic[R]):
    """A SELECT run on the transaction's connection, each row made by `row` (a NamedTuple's `_make`)."""

    def __init__(self, statement: Executable, row: Callable[[Iterable[object]], R]) -> None:
        super().__init__(statement)
        self.row = row

    async def rows(self, connection: AsyncConnection, values: Values) -> list[R]:
        outcome = await self._run(connection, values, reads=True)
        rows = (await connection.execute(self.statement, dict(values))).all() if outcome is None else outcome.rows
        return [self.row(row) for row in rows]
