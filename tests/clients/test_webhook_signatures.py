"""verify_webhook (issue 35, item 14): False, never an exception, for any header that is not Lineup's form. The
header comes from whoever reached the receiver: `t=²` (a digit to str.isdigit(), not to int()) and a non-ASCII
signature (which hmac.compare_digest refuses to compare) raised, and so did the verifier the docs show. The
TypeScript client's verifyWebhook is held to the same list by clients/typescript/test/signatures.test.mjs, run
here without a stack."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time

import pytest
from lineup_client import verify_webhook

from codegen import typescript
from tests.support.node import run, tool
from tests.support.webhooks import verifier

SECRET = "whsec_test"
BODY = b'{"id":"evt_1","type":"line.received"}'
NOW = int(time.time())
GOOD = hmac.new(SECRET.encode(), f"{NOW}.".encode() + BODY, hashlib.sha256).hexdigest()


@pytest.fixture(autouse=True)
def signed_just_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """The verifiers' clock stopped at NOW: a header is refused for its form here, never for its age (the list is
    built as the module is collected, which under pytest-xdist can be minutes before a test runs)."""
    monkeypatch.setattr(time, "time", lambda: float(NOW))


def test_a_header_lineup_signed_is_verified_with_or_without_spaces_and_in_either_case_of_hex():
    assert verify_webhook(SECRET, f"t={NOW},v1={GOOD}", BODY)
    assert verify_webhook(SECRET, f" t={NOW} , v1={GOOD.upper()} ", BODY.decode())
    assert verify_webhook(SECRET, f"t={NOW},v1={GOOD},v0=other", BODY)  # a key of another scheme is no harm


MALFORMED = {
    "a superscript digit for t": f"t=²,v1={GOOD}",
    "Arabic-Indic digits for t": f"t={'٣' * 10},v1={GOOD}",
    "a non-ASCII signature": f"t={NOW},v1={'é' * 64}",
    "a non-ASCII signature of another length": f"t={NOW},v1=ü{GOOD}",
    "a signature too short": f"t={NOW},v1={GOOD[2:]}",
    "a signature too long": f"t={NOW},v1={GOOD}00",
    "no v1": f"t={NOW}",
    "no t": f"v1={GOOD}",
    "empty": "",
    "no equals signs": "garbage",
    "empty values": "t=,v1=",
    "a timestamp of 5,000 digits": f"t={'9' * 5000},v1={GOOD}",  # past int()'s 4,300-digit limit
    "a signature of a million characters": f"t={NOW},v1={'a' * 1_000_000}",
    "a negative timestamp": f"t=-{NOW},v1={GOOD}",
    "a fractional timestamp": f"t={NOW}.0,v1={GOOD}",
    "a timestamp with an underscore": f"t={NOW // 1000}_{NOW % 1000:03d},v1={GOOD}",  # int() takes it
    "t twice": f"t={NOW},t={NOW},v1={GOOD}",
    "v1 twice": f"t={NOW},v1={GOOD},v1={GOOD}",
    "a NUL": f"t={NOW}\x00,v1={GOOD}",
    "a lone surrogate": f"t={NOW},v1=\ud800{GOOD}",
    "None": None,
    "bytes": f"t={NOW},v1={GOOD}".encode(),
    "a list of headers": [f"t={NOW},v1={GOOD}"],
}


@pytest.mark.parametrize("header", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_header_is_refused_not_raised_on(header):
    assert verify_webhook(SECRET, header, BODY) is False


def test_a_body_that_no_request_could_carry_is_refused_not_raised_on():
    assert verify_webhook(SECRET, f"t={NOW},v1={GOOD}", "\ud800") is False  # a str with a lone surrogate


@pytest.mark.parametrize("name", [name for name, header in MALFORMED.items() if isinstance(header, str)])
def test_the_verifier_the_docs_show_refuses_the_same_headers(name):
    """docs/webhooks.md's ten lines (and the README's) raised on the same headers as the client did."""
    _, verify = verifier()
    # A key twice is the docs' one leniency: the last one counts, and it must still carry Lineup's signature.
    assert verify(SECRET, MALFORMED[name], BODY) is ("twice" in name)


async def test_the_typescript_clients_verify_webhook_refuses_the_same_headers():
    await asyncio.to_thread(typescript.installed)
    output = await run(tool("node"), "--test", "test/signatures.test.mjs", cwd=typescript.ROOT)
    assert "# fail 0" in output and "# pass 0" not in output, output
