"""Debian's Prometheus in tests: where promtool and the server are, the shipped rules, and the rule that their
absence skips a test locally and fails it under CI=true (as chromium's does for the console's browser tests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "lineup-rules.yml"
RULE_TESTS = ROOT / "deploy" / "prometheus" / "lineup-rules.test.yml"
PROMTOOL = Path("/usr/bin/promtool")
PROMETHEUS = Path("/usr/bin/prometheus")


def needed(binary: Path) -> str:
    """The binary's path; a skip without it, or a failure under CI=true."""
    if not binary.exists():
        reason = f"{binary} is missing; `make test` installs Debian's prometheus (scripts/apt-install.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the alert rules' tests need it under CI=true: {reason}")
        pytest.skip(reason)
    return str(binary)
