"""The start of an HTTP answer, never more (issue 27, finding 1): a receiver that answered 500 with a 1.5 GiB body
took a worker from 165 MiB to 7.3 GiB, once per retry. At most `limit` bytes are read off the wire, as they
arrive; the rest is never read (the connection is closed instead). Lineup asks for an uncompressed answer
(`Accept-Encoding: identity`); a receiver that compresses anyway has its answer decompressed only when its
compressed bytes fit in the limit, and then into at most `limit` bytes, so a small "zip bomb" stays small."""

from __future__ import annotations

import zlib

import httpx

IDENTITY = {"Accept-Encoding": "identity"}
# zlib's window bits: 32 + 15 reads a gzip or a zlib stream (told apart by their header); -15 a raw deflate one.
GZIP_OR_ZLIB, RAW_DEFLATE = 47, -15


async def head_of(response: httpx.Response, limit: int) -> str:
    """The answer's first `limit` bytes as text (a streamed response; the caller closes it)."""
    if response.is_stream_consumed:  # a transport that read it already (httpx's MockTransport), decoded
        return _text(response, response.content[:limit])
    raw = b""
    async for chunk in response.aiter_raw():
        raw += chunk[: limit + 1 - len(raw)]
        if len(raw) > limit:
            break
    encoding = response.headers.get("content-encoding", "identity").strip().lower() or "identity"
    if encoding != "identity":
        if len(raw) > limit:
            return f"(a {encoding}-compressed answer of more than {limit} bytes, not read)"
        raw = _inflated(raw, encoding, limit)
        if not raw:
            return f"(a {encoding}-compressed answer, not read)"
    return _text(response, raw[:limit])


def _text(response: httpx.Response, raw: bytes) -> str:
    try:
        return raw.decode(response.charset_encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return raw.decode("utf-8", errors="replace")


def _inflated(raw: bytes, encoding: str, limit: int) -> bytes:
    """At most `limit` bytes of a gzip or deflate body; nothing for another encoding or a broken one."""
    if encoding not in ("gzip", "x-gzip", "deflate"):
        return b""
    for window in (GZIP_OR_ZLIB, RAW_DEFLATE):  # `deflate` is zlib by the RFC, raw deflate in practice
        try:
            return zlib.decompressobj(window).decompress(raw, limit)
        except zlib.error:
            continue
    return b""
