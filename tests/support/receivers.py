"""Webhook receivers that misbehave, over real sockets on a free port of 127.0.0.1 (an endless answer, one that
trickles in a byte at a time, a compressed one), and this process's memory watched while something runs."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

T = TypeVar("T")

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


async def watched(work: Awaitable[T], *, ceiling: int) -> tuple[T | None, int]:
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
