"""What a webhook delivery reads of the receiver's answer (issue 27, finding 1): at most a few KiB, as it streams
in, whatever the receiver sends (an endless body, a compressed one), under one deadline for the whole POST. Local
receivers over real sockets; the test process is the worker, and its memory is watched while it posts."""

from __future__ import annotations

import asyncio
import gzip

import pytest

from adapters.webhooks import ANSWER_BYTES, Answer, WebhookSender
from tests.support.receivers import MiB, compressed, dripping, endless, receiver, watched


async def post(url: str, *, deadline: float = 10.0) -> Answer:
    sender = WebhookSender(timeout_seconds=deadline, production=False, allow_private=False)
    try:
        return await sender.post(url, b'{"id":"evt_1"}', secret="s", timestamp=1)
    finally:
        await sender.close()


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
