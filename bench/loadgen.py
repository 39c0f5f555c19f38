"""`python -m bench.loadgen`: the fallback load generator when wrk is missing — wrk_chain.lua's protocol
(token pool, re-authentication, the same BENCH_RESULT line) over raw asyncio streams, one process."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bench.stats import percentile

TOKEN = re.compile(rb'"token"\s*:\s*"([^"]+)"')
SUCCESS = re.compile(rb'"msg_code"\s*:\s*"RESTAPI000"')
REAUTH = re.compile(rb'"msg":\s*"Successfully Authenticate"')


@dataclass
class Tally:
    pool: list[bytes]
    latencies: list[float] = field(default_factory=list)
    ok: int = 0
    failed: int = 0
    reauth: int = 0
    socket_errors: int = 0


def request_bytes(host: str, path: str, body: bytes, token: bytes | None) -> bytes:
    headers = f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    headers += f"Content-Length: {len(body)}\r\n"
    return headers.encode() + (b"token: " + token + b"\r\n" if token else b"") + b"\r\n" + body


async def read_answer(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length:\s*(\d+)", head)
    return await reader.readexactly(int(length[1])) if length else b""


async def connection(args: argparse.Namespace, tally: Tally, body: bytes, auth: bytes, deadline: float) -> None:
    target = urlsplit(args.url)
    reader, writer = await asyncio.open_connection(target.hostname, target.port)
    while time.monotonic() < deadline and not (args.requests and len(tally.latencies) >= args.requests):
        token = tally.pool.pop() if tally.pool else None
        tally.reauth += token is None
        message = request_bytes(target.netloc, args.path if token else "/authenticate", body if token else auth, token)
        started = time.perf_counter()
        writer.write(message)
        try:
            answer = await read_answer(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            tally.socket_errors += 1
            reader, writer = await asyncio.open_connection(target.hostname, target.port)
            continue
        tally.latencies.append((time.perf_counter() - started) * 1000)
        if found := TOKEN.search(answer):
            tally.pool.append(found[1])
        if not REAUTH.search(answer):
            tally.ok += bool(SUCCESS.search(answer))
            tally.failed += not SUCCESS.search(answer)
    writer.close()


async def main(args: argparse.Namespace, tokens: list[bytes], body: bytes, auth: bytes) -> None:
    tally = Tally(pool=tokens)
    started = time.monotonic()
    deadline = started + args.seconds
    await asyncio.gather(*(connection(args, tally, body, auth, deadline) for _ in range(args.connections)))
    result = {
        "requests": len(tally.latencies),
        "duration_us": (time.monotonic() - started) * 1e6,
        "p50_us": (percentile(tally.latencies, 50) or 0) * 1000,
        "p99_us": (percentile(tally.latencies, 99) or 0) * 1000,
        "max_us": max(tally.latencies, default=0) * 1000,
        "ok": tally.ok,
        "failed": tally.failed,
        "reauth": tally.reauth,
        "socket_errors": tally.socket_errors,
        "timeouts": 0,
    }
    print("BENCH_RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    for name in ("--url", "--path", "--body", "--auth-body", "--tokens"):
        parser.add_argument(name, required=True)
    parser.add_argument("--connections", type=int, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--requests", type=int, default=0, help="stop after this many requests (0: run --seconds)")
    arguments = parser.parse_args()
    tokens = [line.encode() for line in Path(arguments.tokens).read_text().split()]
    asyncio.run(main(arguments, tokens, Path(arguments.body).read_bytes(), Path(arguments.auth_body).read_bytes()))
