"""Large bodies with a token that works do not hold the event loop (issue 27, finding 8): a body past 64 KiB is
parsed off the loop (and `agent_change_password`'s, past the general limit, validated off it), and an object over
LINEUP_MAX_JSON_MEMBERS is refused as the scan meets its 1001st member, before anything is built. Four clients
posting 12 MiB bodies to /auth kept /healthz waiting 692 ms at the median, 1.33 s at most."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any

import pytest

from api import edge
from tests.support.builders import body

MiB = 1024 * 1024
JSON = {"content-type": "application/json"}
STALL = 0.3  # seconds: the loop's longest pause while the body is handled (about a second before, for members)


def crowded_body() -> bytes:
    """agent_change_password's fields and a million members more: 11.9 MiB, within /auth's 12 MiB."""
    members: dict[str, object] = {f"k{i:07d}": 0 for i in range(int(11.9 * MiB) // 15)}
    return json.dumps({**members, **body("agent_change_password")}).encode()


def images_body() -> bytes:
    """Three proofs of 4 MiB of base64 each (each over its 1 MiB once decoded): 12 MiB."""
    proofs = dict.fromkeys(("worksite_proof", "table_proof", "agent_change_password"), "A" * (4 * MiB - 2048))
    return json.dumps(body("agent_change_password", **proofs)).encode()


async def longest_stall(work: Awaitable[Any]) -> tuple[Any, float]:
    """`work`'s result, and the longest the event loop went without running a 5 ms ticker meanwhile."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    last, longest = loop.time(), 0.0
    while not task.done():
        await asyncio.sleep(0.005)
        now = loop.time()
        longest, last = max(longest, now - last), now
    return await task, longest


@pytest.mark.parametrize(
    ("make", "errors"),
    [
        (crowded_body, ["A JSON object of the body has more than 1000 members"]),
        (images_body, [f"{name} must be at most 1 MiB once decoded" for name in ("Worksite proof", "Table proof")]),
    ],
)
async def test_a_12_mib_body_with_a_working_token_does_not_hold_the_loop(api, make, errors):
    raw = make()
    assert 11 * MiB < len(raw) <= 12 * MiB
    token = await api.token()
    await api.post("/auth", content=b"{}", headers=JSON, token=await api.token())  # the route's first use, warmed
    response, stall = await longest_stall(api.post("/auth", content=raw, headers=JSON, token=token))
    print(f"\n{make.__name__}: the event loop's longest pause {stall * 1000:.0f} ms")
    assert response.json()["errors"][: len(errors)] == errors
    assert stall < STALL


def test_an_object_over_the_limit_is_refused_before_json_builds_anything(monkeypatch):
    def never(*_: object, **__: object) -> object:
        raise AssertionError("json.loads ran")

    monkeypatch.setattr("api.edge.json.loads", never)
    crowded = b'{"a": {"s": "x:y\\":", ' + b", ".join(b'"k%d": [1, {"b": 2}]' % i for i in range(1001)) + b"}}"
    with pytest.raises(edge.BodyProblem, match="more than 1000 members"):
        edge.parse(crowded, 1000)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"k": "a \\" ' + b"x: 1, " * 2000 + b'\\\\"}',  # colons within a string (an escaped quote too) are no members
        b'{"list": [' + b", ".join(b'{"k%d": 1}' % i for i in range(2000)) + b"]}",  # many objects, each small
        b'{"nested": {' + b", ".join(b'"k%d": 1' % i for i in range(999)) + b'}, "a": 1}',
    ],
)
def test_what_stays_within_the_limit_is_parsed(raw):
    assert isinstance(edge.parse(raw, 1000), dict)
