"""The check of a webhook delivery's `Lineup-Signature` header, as docs/webhooks.md gives it: `v1` is the hex
HMAC-SHA256, under the endpoint's secret, of the timestamp `t`, a dot and the raw body."""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "Lineup-Signature"


def verify_webhook(secret: str, header: str, body: bytes | str, tolerance: int = 300) -> bool:
    """True when `body` (the raw request body, before any parsing) was signed by Lineup with `secret` within
    `tolerance` seconds of now."""
    parts = dict(item.strip().split("=", 1) for item in header.split(",") if "=" in item)
    timestamp, signature = parts.get("t", ""), parts.get("v1", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > tolerance:
        return False
    raw = body.encode() if isinstance(body, str) else body
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)
