"""The check of a webhook delivery's `Lineup-Signature` header, as docs/webhooks.md gives it: `v1` is the hex
HMAC-SHA256, under the endpoint's secret, of the timestamp `t`, a dot and the raw body. A header that is not of
that form is answered False, never an exception: it comes from whoever reached the receiver."""

from __future__ import annotations

import hashlib
import hmac
import re
import time

SIGNATURE_HEADER = "Lineup-Signature"
# ASCII digits only, and few: `str.isdigit()` also takes "²", which int() refuses, and int() refuses more than
# 4,300 digits; hexadecimal of a SHA-256 exactly: compare_digest raises on a non-ASCII str.
TIMESTAMP = re.compile(r"[0-9]{1,18}")
SIGNATURE = re.compile(r"[0-9a-fA-F]{64}")


def verify_webhook(secret: str, header: str | None, body: bytes | str, tolerance: int = 300) -> bool:
    """True when `body` (the raw request body, before any parsing) was signed by Lineup with `secret` within
    `tolerance` seconds of now; False for anything else, a malformed or missing header included."""
    fields = _fields(header)
    if fields is None:
        return False
    timestamp, signature = fields.get("t", ""), fields.get("v1", "")
    if not (TIMESTAMP.fullmatch(timestamp) and SIGNATURE.fullmatch(signature)):
        return False
    if abs(time.time() - int(timestamp)) > tolerance:
        return False
    try:
        raw = body.encode() if isinstance(body, str) else body
    except UnicodeEncodeError:  # a str with lone surrogates: not what any request carried
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature.lower())


def _fields(header: object) -> dict[str, str] | None:
    """The header's `key=value` items; None when it is not text, or names a key twice (which one would count?)."""
    if not isinstance(header, str):
        return None
    fields: dict[str, str] = {}
    for item in header.split(","):
        key, equals, value = item.partition("=")
        if not equals:
            continue
        if key.strip() in fields:
            return None
        fields[key.strip()] = value.strip()
    return fields
