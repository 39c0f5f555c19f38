"""The shape of the code holds: the import contracts in pyproject.toml (layers, a sandbox that imports
nothing of Lineup, no cycles inside a package) and the entry points nothing imports back."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROOT_PACKAGES: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"
APPLICATION = (
    "api",
    "cli",
    "services",
    "workflows",
    "activities",
    "adapters",
    "persistence",
    "models",
    "observability",
)


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """In its own process: import-linter configures logging with dictConfig, which would disable every logger
    this test session has created (and so the log assertions of the tests after this one)."""
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--no-cache"],
        cwd=cwd, env={**os.environ, "PYTHONPATH": str(cwd)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_import_contracts_are_kept() -> None:
    checked = lint_imports(ROOT)
    assert checked.returncode == 0, f"an import contract is broken:\n{checked.stdout}"


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_nothing_in_the_application_imports_the_worker_entry_point() -> None:
    """worker.py is a module, which import-linter cannot hold a contract for: it composes the worker and
    nothing below it may reach back up."""
    offenders = [
        str(path.relative_to(ROOT))
        for package in APPLICATION
        for path in (ROOT / package).rglob("*.py")
        if "worker" in imported_modules(path)
    ]
    assert offenders == []


def test_the_layer_contract_rejects_an_upward_import(tmp_path: Path) -> None:
    """The contract is not vacuous: the same configuration refuses a module of models importing services."""
    for package in ROOT_PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "models" / "upward.py").write_text("import services\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    checked = lint_imports(tmp_path)
    assert checked.returncode != 0
    assert "models.upward -> services" in checked.stdout
