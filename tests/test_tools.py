"""The developer's tools do what they say and nothing more: `make install` reinstalls only when what installing
depends on changes (not a tool's setting in pyproject.toml), and `pytest --collect-only` exits 0."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def install_key(root: Path) -> str:
    done = subprocess.run(["make", "-s", "install-key"], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_tools_setting_reinstalls_nothing_and_a_dependency_does(tmp_path: Path) -> None:
    for name in ("Makefile", "pyproject.toml", "requirements.lock", "clients/python/pyproject.toml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    key = install_key(tmp_path)
    project = tmp_path / "pyproject.toml"
    project.write_text(project.read_text().replace("line-length = 120", "line-length = 100"))
    assert install_key(tmp_path) == key
    project.write_text(project.read_text().replace('"httpx>=0.27"', '"httpx>=0.28"'))
    assert install_key(tmp_path) != key


def test_collecting_the_tests_exits_zero() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
