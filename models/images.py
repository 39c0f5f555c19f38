"""Images channels send as base64 (signatures, password-change proofs): PNG or JPEG by their magic bytes,
with a decoded-size limit."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from models.rules import Plain, blank, fail
from models.setting_groups import MiB


@dataclass(frozen=True, repr=False)
class Image:
    """A decoded PNG or JPEG; repr never shows the bytes (they may reach a log through an error)."""

    media_type: str  # image/png or image/jpeg
    content: bytes

    def __repr__(self) -> str:
        return f"Image({self.media_type}, {len(self.content)} bytes)"


IMAGE_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}
_DATA_URI = re.compile(r"data:([\w.+-]+/[\w.+-]+)?;base64,", re.IGNORECASE)
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _decode_image(limit: int) -> Callable[[object], Image]:
    def check(value: object) -> Image:
        if value is None or (isinstance(value, str) and not value.strip()):
            raise blank()
        if not isinstance(value, str):
            raise fail("must be base64 text")
        text, declared = value.strip(), None
        if prefix := _DATA_URI.match(text):
            declared = (prefix.group(1) or "").lower().replace("image/jpg", "image/jpeg")
            text = text[prefix.end() :]
        text = "".join(text.split())  # whitespace base64 may carry (str.split: a 4 MiB image in 6 ms, re.sub 94)
        # Refused before decoding: base64 is 4 characters per 3 bytes.
        if len(text) // 4 * 3 > limit + 3:
            raise fail(f"must be at most {limit // MiB} MiB once decoded")
        if not _BASE64.fullmatch(text):
            raise fail("must be base64 data (a data URI is allowed)")
        try:
            content = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        except binascii.Error:
            raise fail("must be base64 data (a data URI is allowed)") from None
        if len(content) > limit:
            raise fail(f"must be at most {limit // MiB} MiB once decoded")
        media_type = next((kind for kind, magic in IMAGE_MAGIC.items() if content.startswith(magic)), None)
        if media_type is None:
            raise fail("must be a PNG or JPEG image")
        if declared and declared != media_type:
            kind = media_type.removeprefix("image/").upper()
            raise fail(f"is declared as {declared} but holds a {kind} image")
        return Image(media_type, content)

    return check


def image(limit: int) -> Plain:
    """A required base64 PNG or JPEG (data-URI form allowed) of at most `limit` bytes, checked by its magic
    bytes; the field's value is the decoded Image."""
    schema: dict[str, object] = {
        "type": "string",
        "contentEncoding": "base64",
        "description": f"base64 PNG or JPEG, at most {limit // MiB} MiB",
        "examples": ["data:image/png;base64,iVBORw0KGgo..."],
    }
    return Plain(_decode_image(limit), schema)


SignatureImage = Annotated[Image, image(2 * MiB)]
ProofImage = Annotated[Image, image(1 * MiB)]  # three a call, kept for LINEUP_PROOF_RETENTION_DAYS
