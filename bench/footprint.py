"""What a scenario left in the stack's database: rows and bytes per table before and after, so a line's
footprint is the difference divided by the lines it made. Bytes are what each database allocates to the table
and its indexes (SQLite's dbstat pages, PostgreSQL's pg_total_relation_size), so a few lines move them by
whole pages: read them over many lines."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

SQLITE_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
SQLITE_BYTES = (
    "SELECT m.tbl_name, SUM(d.pgsize) FROM dbstat AS d JOIN sqlite_master AS m ON m.name = d.name GROUP BY m.tbl_name"
)
PG_TABLES = "SELECT relname FROM pg_stat_user_tables"
PG_BYTES = "SELECT relname, pg_total_relation_size(relid) FROM pg_stat_user_tables"


@dataclass
class Footprint:
    rows: dict[str, int] = field(default_factory=dict)
    bytes: dict[str, int] = field(default_factory=dict)

    def minus(self, before: Footprint) -> Footprint:
        """Per table, what was added since `before` (tables that did not change are left out)."""
        rows = {t: n - before.rows.get(t, 0) for t, n in self.rows.items() if n != before.rows.get(t, 0)}
        grown = {t: n - before.bytes.get(t, 0) for t, n in self.bytes.items() if n != before.bytes.get(t, 0)}
        return Footprint(rows, grown)


async def _counts(connection: AsyncConnection, tables: list[str]) -> dict[str, int]:
    found = {}
    for table in tables:
        found[table] = int((await connection.execute(text(f'SELECT count(*) FROM "{table}"'))).scalar_one())
    return found


async def footprint(engine: AsyncEngine) -> Footprint:
    sqlite = engine.dialect.name == "sqlite"
    async with engine.connect() as connection:
        tables = [row[0] for row in await connection.execute(text(SQLITE_TABLES if sqlite else PG_TABLES))]
        rows = await _counts(connection, sorted(tables))
        sizes = {
            str(name): int(size or 0)
            for name, size in await connection.execute(text(SQLITE_BYTES if sqlite else PG_BYTES))
        }
    return Footprint(rows, sizes)


@dataclass(frozen=True)
class PerUnit:
    """Rows and bytes per unit (e.g. per line), in all and per table."""

    units: int
    rows: float
    bytes: float
    rows_by_table: dict[str, float]
    bytes_by_table: dict[str, float]


def per_unit(added: Footprint, units: int) -> PerUnit | None:
    if units <= 0:
        return None
    return PerUnit(
        units,
        round(sum(added.rows.values()) / units, 2),
        round(sum(added.bytes.values()) / units, 1),
        {t: round(n / units, 2) for t, n in sorted(added.rows.items())},
        {t: round(n / units, 1) for t, n in sorted(added.bytes.items())},
    )
