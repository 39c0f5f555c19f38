"""The settings table operators read is the settings the code reads."""

from __future__ import annotations

import re
from pathlib import Path

from codegen.docs import SETTINGS_SECTION, TOP_LEVEL, settings_table
from models.settings import FLAT, GROUPS, PREFIX, Settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_operations_page_holds_the_table_the_declarations_generate() -> None:
    assert not SETTINGS_SECTION.stale(settings_table()), "run `make generate`"


def test_every_setting_outside_a_group_has_its_row() -> None:
    ungrouped = {name.upper() for name in Settings.model_fields if name not in GROUPS}
    assert ungrouped == {name for name, _, _ in TOP_LEVEL}


def test_every_variable_the_docs_name_is_one_the_code_reads() -> None:
    known = {PREFIX + name.upper() for name in FLAT} | {PREFIX + name for name, _, _ in TOP_LEVEL}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = {
        (page.name, variable)
        for page in pages
        for variable in re.findall(r"LINEUP_[A-Z0-9_]*[A-Z0-9]", page.read_text())
    }
    assert {(page, variable) for page, variable in named if variable not in known} == set()
