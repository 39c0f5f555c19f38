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
APPLICATION = ("api", "cli", "workflows", "activities", "adapters", "models")
# The card's rooms are split by domain under the same names: whoever knows a domain's name finds its request side
# (api/), its workflows, its activities and its data (models/) at once. Besides the domains a room holds only the
# machinery of its own work.
DOMAINS = {
    "enrollment", "porting", "payment", "eligibility", "devices", "mail", "agents", "auth", "address", "support",
    "webhooks",
}  # fmt: skip
MACHINERY = {
    "api": {"main", "edge", "dispatch", "access", "temporal", "catalog", "openapi", "console"},
    "workflows": {"policies", "registry"},
    "activities": {"registry"},
    "adapters": {"carrier", "nlad", "payments", "smtp", "webhooks", "http"},  # the outside systems, by name
    "models": {"db", "settings", "envelope", "types", "crypto", "events", "observability"},
    "cli": {"main", "run", "accounts"},
}


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """In its own process: import-linter configures logging with dictConfig, which would disable every logger
    this test session has created (and so the log assertions of the tests after this one)."""
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--no-cache"],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(cwd)},
        capture_output=True,
        text=True,
        timeout=120,
    )


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
    """The contract is not vacuous: the same configuration refuses a module of models importing the api."""
    for package in [*ROOT_PACKAGES, "api/console", "models/enrollment"]:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "models" / "upward.py").write_text("import api\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    checked = lint_imports(tmp_path)
    assert checked.returncode != 0
    assert "models.upward -> api" in checked.stdout


TESTS = ROOT / "tests"


def _named_modules(tree: ast.Module) -> set[str]:
    """Every module a file imports (relative ones with their leading dots) and every plugin it registers."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.ImportFrom) and node.module == "tests":  # `from tests import builders`
            found.update(f"tests.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytest_plugins" for t in node.targets):
            found.update(
                c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)
            )
    return found


def helpers_outside_support(source: str) -> list[str]:
    """What of the tests a module imports from elsewhere than tests/support (a test module, a conftest, a
    relative import)."""
    return sorted(
        name
        for name in _named_modules(ast.parse(source))
        if name.startswith(".") or (name.split(".")[0] == "tests" and name.split(".")[:2] != ["tests", "support"])
    )


def test_test_modules_share_helpers_only_through_tests_support() -> None:
    """A helper two test modules need lives in tests/support (a fixture there is registered by a conftest's
    pytest_plugins): a test module imported by another runs its import-time side effects twice, drags its tests'
    dependencies along, and breaks when the tests it holds move."""
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in sorted(TESTS.rglob("*.py"))
        if (found := helpers_outside_support(path.read_text()))
    }
    assert offenders == {}, "move these helpers to a module of tests/support"


def test_the_support_rule_catches_a_test_module_a_conftest_and_a_relative_import() -> None:
    source = (
        "import tests.workflows.test_sweep\nfrom tests.console.conftest import PASSWORD\nfrom tests import builders\n"
        "from .builders import body\nfrom tests.support.lines import wait_for\nimport tests.support.ports\n"
        'pytest_plugins = ["tests.support.mail_relay", "tests.workflows.test_mail_delivery"]\n'
    )
    assert helpers_outside_support(source) == [
        ".builders",
        "tests.builders",
        "tests.console.conftest",
        "tests.workflows.test_mail_delivery",
        "tests.workflows.test_sweep",
    ]


def test_the_every_workflow_guard_names_each_registered_workflow_no_test_ran() -> None:
    """Each workflow the worker runs must be run alone by a test on the time-skipping server: the `time_skipping`
    fixture records every run (tests/support/workflow_runs.py), and a whole run of the suite fails while a
    registered type was never run. tests/workflows/test_every_workflow_guard.py checks the recording itself."""
    from tests.support.workflow_runs import missing
    from workflows.registry import WORKFLOWS

    every = {cls.__name__ for cls in WORKFLOWS}
    assert missing(every) == []
    assert missing(every - {"LineWorkflow", "SweepWorkflow"}) == ["LineWorkflow", "SweepWorkflow"]


def test_the_product_is_the_cards_rooms_each_split_by_domain() -> None:
    packages = {path.name for path in ROOT.iterdir() if (path / "__init__.py").exists()}
    product = packages - {"tests", "sandbox", "bench", "soak", "codegen", "clients", "migrations", "deploy", "scripts"}
    assert product == set(APPLICATION)
    found = {
        room: {path.stem if path.suffix else path.name for path in (ROOT / room).iterdir() if path.name[0] not in "._"}
        for room in APPLICATION
    }
    strays = {room: names - DOMAINS - MACHINERY[room] for room, names in found.items()}
    assert strays == {room: set() for room in APPLICATION}


# SQLAlchemy's internals (its util package, a dialect's driver modules) change between releases without notice;
# the one dialect construct Lineup uses, the documented INSERT … ON CONFLICT DO NOTHING, is built in one place.
DIALECT_HOME = "models/db.py"


def sqlalchemy_internals(relative: str, modules: set[str]) -> list[str]:
    def internal(module: str) -> bool:
        if module == "sqlalchemy.util" or module.startswith("sqlalchemy.util."):
            return True
        if module == "sqlalchemy.dialects":
            return relative != DIALECT_HOME
        return module.startswith("sqlalchemy.dialects.")

    return sorted(f"{relative}: {module}" for module in modules if internal(module))


def test_the_application_imports_no_sqlalchemy_internal() -> None:
    found = [
        offence
        for package in (*APPLICATION, "migrations")
        for path in (ROOT / package).rglob("*.py")
        for offence in sqlalchemy_internals(str(path.relative_to(ROOT)), imported_modules(path))
    ]
    found += sqlalchemy_internals("worker.py", imported_modules(ROOT / "worker.py"))
    assert found == []


def test_the_sqlalchemy_rule_catches_util_a_driver_module_and_a_dialect_outside_its_home() -> None:
    modules = {"sqlalchemy", "sqlalchemy.util.langhelpers", "sqlalchemy.dialects.sqlite.aiosqlite", "sqlalchemy.orm"}
    assert sqlalchemy_internals("api/x.py", modules) == [
        "api/x.py: sqlalchemy.dialects.sqlite.aiosqlite",
        "api/x.py: sqlalchemy.util.langhelpers",
    ]
    assert sqlalchemy_internals("api/x.py", {"sqlalchemy.dialects"}) == ["api/x.py: sqlalchemy.dialects"]
    assert sqlalchemy_internals(DIALECT_HOME, {"sqlalchemy.dialects"}) == []
