"""docs/architecture.md's rooms table is the tree as it stands: each room's floor, its modules and its lines, and
the module of each domain in each room."""

from __future__ import annotations

from pathlib import Path

from codegen.docs import ROOMS_SECTION, rooms_table


def test_the_architecture_page_holds_the_rooms_table_the_tree_generates() -> None:
    assert not ROOMS_SECTION.stale(rooms_table()), "run `make generate`"


def test_the_table_counts_a_rooms_lines_and_names_each_domains_module(tmp_path: Path) -> None:
    for room in ("cli", "api", "workflows", "activities", "adapters", "models"):
        (tmp_path / room).mkdir()
        (tmp_path / room / "__init__.py").write_text("")
    (tmp_path / "worker.py").write_text("a = 1\n")
    (tmp_path / "api" / "porting.py").write_text("a = 1\nb = 2\n")
    (tmp_path / "api" / "edge.py").write_text("a = 1\n")
    table = rooms_table(tmp_path)
    assert "| 2 | `api` | 1 | edge | 3 |" in table
    assert "| | all | | | 4 |" in table
    assert "| porting | `api/porting.py` |  |  |  |" in table
