"""docs/operations.md's settings table, generated from the settings' declarations so a setting cannot be added,
renamed or given another default without the docs following: `python -m models.settings_table --write`."""

from __future__ import annotations

import sys

from models.doc_sections import DOCS, DocSection
from models.setting_groups import GROUPS, PREFIX

SECTION = DocSection(DOCS / "operations.md", "settings table", "models.settings_table")

# The three that belong to no group: they decide how every other one is read or protected.
TOP_LEVEL = (
    ("PROFILE", "dev", "`production` refuses to start without `LINEUP_ENCRYPTION_KEY`"),
    ("DATA_DIR", ".data", "Every file `make run` writes: databases, logs, the generated key"),
    ("ENCRYPTION_KEY", "", "32 bytes, url-safe base64, encrypting PII; empty in dev: generated into the data dir"),
)


def _shown(default: object) -> str:
    if default == "" or default is None:
        return "(empty)"
    if isinstance(default, bool):
        return "`true`" if default else "`false`"
    return f"`{default}`"


def table() -> str:
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    rows += [f"| `{PREFIX}{name}` | {_shown(default)} | {meaning} |" for name, default, meaning in TOP_LEVEL]
    for group in GROUPS.values():
        for declared in group.declared().values():
            variable = PREFIX + declared.alias_name.upper()
            rows.append(f"| `{variable}` | {_shown(declared.default)} | {declared.description} |")
    return "\n".join(rows)


if __name__ == "__main__":
    raise SystemExit(SECTION.main(sys.argv, table))
