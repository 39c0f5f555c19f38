"""The tables every authenticated call writes (tokens, the audit row, agents' locations), reached by name for the
Core statements built once on them: SQLAlchemy's compiled cache then compiles each of those statements once."""

from __future__ import annotations

from sqlalchemy import Column, Table
from sqlalchemy.sql.base import ReadOnlyColumnCollection
from sqlmodel import SQLModel

# A table's columns as SQLAlchemy types them (its default names them with Any).
Columns = ReadOnlyColumnCollection[str, Column[object]]


def table(name: str) -> Table[Columns]:
    """A mapped table by its name (every table module is imported with persistence.engine)."""
    return SQLModel.metadata.tables[name]
