"""Tiny valid PNG and JPEG images for the image fields (signatures, password-change proofs)."""

from __future__ import annotations

import base64
import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(*, padding: int = 0) -> bytes:
    """A 1×1 white PNG; `padding` zero bytes after IEND make it as large as a test needs."""
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    pixels = _chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff"))
    return b"\x89PNG\r\n\x1a\n" + header + pixels + _chunk(b"IEND", b"") + b"\x00" * padding


# The 125-byte 1×1 baseline-arithmetic JPEG: SOI, JFIF, DQT, SOF9, DAC, SOS, one MCU, EOI.
JPEG = bytes.fromhex(
    "ffd8ffe000104a46494600010101004800480000ffdb004300030202020203020202030303030406040404040408060605"
    "0609080a0a090809090a0c0f0c0a0b0e0b09090d110d0e0f101011100a0c12131210130f101010ffc9000b080001000101"
    "011100ffcc000600101005ffda0008010100003f00d2cf20ffd9"
)
GIF = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"


def b64(content: bytes) -> str:
    return base64.b64encode(content).decode()


def data_uri(content: bytes, media_type: str = "image/png") -> str:
    return f"data:{media_type};base64,{b64(content)}"
