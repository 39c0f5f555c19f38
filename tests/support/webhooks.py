"""Webhooks in tests: register an endpoint on the stack's database, read what the sandbox's receiver got, and
verify a delivery's signature as a channel would."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from sqlmodel import select

from api.webhooks import Registered, add_endpoint
from models.auth import Vendor
from models.crypto import cipher_for


async def register(stack: Any, *, vendor: str = "DEMO", events: str | None = None) -> Registered:
    """An endpoint of the vendor at the sandbox's receiver."""
    settings = stack.app.state.settings
    async with stack.db.transaction() as session:
        row = (await session.exec(select(Vendor).where(Vendor.code == vendor))).one()
        return await add_endpoint(
            session,
            cipher_for(settings),
            settings,
            vendor_id=row.id,
            url=f"{stack.sandbox}/sandbox/webhooks",
            events=events,
        )


async def receiver(stack: Any, **faults: Any) -> None:
    """Tells the sandbox's receiver how to answer (fail, fail_next, status, latency_ms)."""
    async with httpx.AsyncClient() as http:
        (await http.post(f"{stack.sandbox}/sandbox/webhooks/faults", json=faults)).raise_for_status()


async def received(stack: Any, enrollment_ids: set[str]) -> list[dict[str, Any]]:
    """Every delivery the receiver recorded for these lines (the receiver is shared by the test session)."""
    async with httpx.AsyncClient() as http:
        found: list[dict[str, Any]] = (await http.get(f"{stack.sandbox}/sandbox/webhooks")).json()
    return [item for item in found if json.loads(item["body"])["data"].get("enrollment_id") in enrollment_ids]


def verified(delivery: dict[str, Any], secret: str) -> bool:
    """The docs' verifier: the header's v1 is the HMAC-SHA256 of "t.body" under the endpoint's secret."""
    parts = dict(part.split("=", 1) for part in delivery["headers"]["lineup-signature"].split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.{delivery['body']}".encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"])


WEBHOOKS_DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def verifier() -> tuple[str, Callable[..., bool]]:
    """The ten-line verifier docs/webhooks.md shows channels, as written: its code and its `verify`."""
    [code] = re.findall(r"```python\n(.*?)```", WEBHOOKS_DOC.read_text(), re.S)
    space: dict[str, object] = {}
    exec(code, space)
    verify = space["verify"]
    assert callable(verify)
    return code, verify
