"""docs/channels.md's table of operations, generated from the catalog so that an action cannot be added, renamed,
given an alias, other sources or a role without the docs following: `python -m api.operations_table --write`."""

from __future__ import annotations

import sys

from api.catalog import CATALOG, Catalog
from dispatch.actions import PORTAL_SOURCE, Action
from models.doc_sections import DOCS, DocSection

SECTION = DocSection(DOCS / "channels.md", "operations table", "api.operations_table")
# The channels in the order the interface names them.
SOURCES = ("API", "WEBSITE", "TABLET", "IVR", "CSR")


def _sources(found: Action) -> str:
    named = [source for source in SOURCES if source in found.sources]
    named += sorted(found.sources - {*SOURCES, PORTAL_SOURCE})
    shown = ", ".join(f"`{source}`" for source in named)
    return shown if found.source_required else f"{shown} or none"


def _row(group: str, found: Action, *, first: bool) -> str:
    path = f"`/{group}`" if first else ""
    name = f"`{found.name}`" + ("" if found.interface else " *ext*")
    aliases = ", ".join(f"`{alias}`" for alias in found.aliases)
    role = f"`{found.role}`" if found.role else ""
    return f"| {path} | {name} | {aliases} | {_sources(found)} | {role} |"


def table(catalog: Catalog = CATALOG) -> str:
    rows = ["| path | action | also answers to | sources | role |", "|---|---|---|---|---|"]
    for group in catalog.groups:
        rows += [_row(group, found, first=index == 0) for index, found in enumerate(catalog.in_group(group))]
    return "\n".join(rows)


if __name__ == "__main__":
    raise SystemExit(SECTION.main(sys.argv, table))
