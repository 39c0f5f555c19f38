"""The tables every authenticated call writes (tokens, the audit row, agents' locations), reached by name for the
Core statements built once on them: SQLAlchemy's compiled cache then compiles each of those statements once. And
the one dialect construct Lineup uses, `INSERT … ON CONFLICT DO NOTHING` (SQLAlchemy's documented
`sqlalchemy.dialects.<name>.insert`), here only."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Column, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.base import ReadOnlyColumnCollection
from sqlmodel import SQLModel

from persistence.transaction import DbSession

# A table's columns as SQLAlchemy types them (its default names them with Any).
Columns = ReadOnlyColumnCollection[str, Column[object]]


def table(name: str) -> Table[Columns]:
    """A mapped table by its name (every table module is imported with persistence.engine)."""
    return SQLModel.metadata.tables[name]


async def insert_or_skip(session: DbSession, model: type[SQLModel], values: Mapping[str, object]) -> None:
    """INSERT … ON CONFLICT DO NOTHING: a row a concurrent writer made first stays as it is, and nothing rolls back
    (a rollback would expire what the caller holds)."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    await session.execute(dialect.insert(model).values(dict(values)).on_conflict_do_nothing())
