"""The verifier docs/webhooks.md shows channels is ten lines, and it accepts Lineup's signature of a body and
refuses a changed body, another secret and an old timestamp."""

from __future__ import annotations

import time
from pathlib import Path

from adapters.webhooks import sign
from tests.support.webhooks import verifier

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_verifier_is_ten_lines_and_checks_lineups_signature() -> None:
    code, verify = verifier()
    assert len([row for row in code.splitlines() if row.strip()]) <= 10
    body = b'{"id":"evt_1","type":"line.activated","created":"2026-11-24T04:21:33+00:00","data":{}}'
    now = int(time.time())
    header = sign("whsec_test", body, now)
    assert verify("whsec_test", header, body)
    assert not verify("whsec_test", header, body.replace(b"activated", b"received"))
    assert not verify("whsec_other", header, body)
    assert not verify("whsec_test", sign("whsec_test", body, now - 3600), body)
    assert not verify("whsec_test", "v1=abc", body)


def test_the_readme_shows_the_same_verifier() -> None:
    code, _ = verifier()
    assert f"```python\n{code}```" in (ROOT / "README.md").read_text()
