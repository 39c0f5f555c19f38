"""Reads a QR code the way a phone's camera would: an image decoded to the text it carries."""

from __future__ import annotations

import base64
import io

import zxingcpp
from PIL import Image

PNG_DATA_URI = "data:image/png;base64,"


def qr_text(data_uri: str) -> str | None:
    """The text of the QR code in a PNG data URI, or None when the image holds no readable QR code."""
    assert data_uri.startswith(PNG_DATA_URI), data_uri[:40]
    image = Image.open(io.BytesIO(base64.b64decode(data_uri.removeprefix(PNG_DATA_URI), validate=True)))
    assert image.format == "PNG"
    found = zxingcpp.read_barcode(image)
    if found is None:
        return None
    assert found.format == zxingcpp.BarcodeFormat.QRCode, found.format
    return found.text
