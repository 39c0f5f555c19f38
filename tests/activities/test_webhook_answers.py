"""What a webhook delivery reads of the receiver's answer (issue 27, finding 1): at most a few KiB, as it streams
in, whatever the receiver sends (an endless body, a compressed one), under one deadline for the whole POST. Local
receivers over real sockets; the test process is the worker, and its memory is watched while it posts."""

from __future__ import annotations

import asyncio
import gzip
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from adapters.webhooks import ANSWER_BYTES, Answer, WebhookSender

MiB = 1024 * 1024
PAGE = os.sysconf("SC_PAGE_SIZE")
Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


@asynccontextmanager
async def receiver(serve: Serve) -> AsyncIterator[str]:
    """A receiver on a free port that reads the request head and body, then answers with `serve`."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.lower().split(b"\r\n")
            length = next(int(line.split(b":", 1)[1]) for line in lines if line.startswith(b"content-length"))
            await reader.readexactly(length)
            await serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the sender hung up, as it should
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/hook"
    finally:
        server.close()


async def endless(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A 500 whose body never ends, sent as fast as the sender takes it (the 1.5 GiB answer, and more)."""
    writer.write(b"HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"Internal error. " * 4096  # 64 KiB
    while True:
        writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        await writer.drain()


async def dripping(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A 200 whose body comes a byte at a time, each well within httpx's per-read timeout."""
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
    while True:
        writer.write(b".")
        await writer.drain()
        await asyncio.sleep(0.2)


def compressed(body: bytes) -> Serve:
    async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = f"HTTP/1.1 503 Service Unavailable\r\nContent-Encoding: gzip\r\nContent-Length: {len(body)}\r\n\r\n"
        writer.write(head.encode() + body)
        await writer.drain()

    return serve


async def post(url: str, *, deadline: float = 10.0) -> Answer:
    sender = WebhookSender(timeout_seconds=deadline, production=False, allow_private=False)
    try:
        return await sender.post(url, b'{"id":"evt_1"}', secret="s", timestamp=1)
    finally:
        await sender.close()


async def watched(work: Awaitable[Answer], *, ceiling: int) -> tuple[Answer | None, int]:
    """Runs `work` while sampling this process's memory; cancels it if it grows past `ceiling` bytes. The answer
    (None when cancelled) and the largest growth seen."""
    start = rss()
    task = asyncio.ensure_future(work)
    grown = 0
    while not task.done():
        grown = max(grown, rss() - start)
        if grown > ceiling:
            task.cancel()
            break
        await asyncio.wait([task], timeout=0.02)
    try:
        return await task, max(grown, rss() - start)
    except asyncio.CancelledError:
        return None, grown


async def test_an_endless_answer_is_read_a_few_kib_and_memory_stays_flat():
    async with receiver(endless) as url:
        await post(url)  # the first POST warms up what any POST allocates once (the TLS context, the codecs)
        answer, grown = await watched(post(url), ceiling=256 * MiB)
    print(f"\nmemory grown while posting to an endless answer: {grown / MiB:.2f} MiB")
    assert answer is not None, f"cancelled after growing {grown / MiB:.0f} MiB"
    assert answer.status == 500 and answer.text.startswith("Internal error. ") and len(answer.text) <= 300
    assert grown < 4 * MiB


async def test_the_whole_post_has_one_deadline_however_the_answer_trickles():
    async with receiver(dripping) as url:
        began = asyncio.get_running_loop().time()
        answer = await asyncio.wait_for(post(url, deadline=1.0), timeout=10)
        took = asyncio.get_running_loop().time() - began
    assert answer == Answer(None, "no answer within 1 s")
    assert took < 3


async def test_a_compressed_answer_within_the_limit_is_read_into_at_most_the_limit():
    bomb = gzip.compress(b"x" * (64 * MiB))  # 64 MiB of answer in about 64 KiB
    small = gzip.compress(b"receiver overloaded " + b" " * MiB)  # a MiB in about a KiB: within the limit
    assert len(small) <= ANSWER_BYTES < len(bomb)
    async with receiver(compressed(bomb)) as url:
        answer, grown = await watched(post(url), ceiling=256 * MiB)
    assert answer == Answer(503, f"(a gzip-compressed answer of more than {ANSWER_BYTES} bytes, not read)")
    async with receiver(compressed(small)) as url:
        answer, grown = await watched(post(url), ceiling=256 * MiB)
    assert answer is not None and answer.status == 503 and answer.text.startswith("receiver overloaded")
    assert grown < 4 * MiB


@pytest.mark.parametrize("encoding", ["br", "zstd"])
async def test_an_answer_in_an_encoding_not_asked_for_is_not_decoded(encoding):
    async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = f"HTTP/1.1 502 Bad Gateway\r\nContent-Encoding: {encoding}\r\nContent-Length: 4\r\n\r\n"
        writer.write(head.encode() + b"abcd")
        await writer.drain()

    async with receiver(serve) as url:
        assert await post(url) == Answer(502, f"(a {encoding}-compressed answer, not read)")
