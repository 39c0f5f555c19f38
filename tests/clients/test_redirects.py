"""A Lineup URL that answers a redirect (issue 35, finding 5): the TypeScript client followed one to another origin
and sent the /authenticate body (password, PIN) there. Neither client follows any redirect: the redirect is an
UnexpectedAnswer, and the login, a call's body and its token go to the base URL only. The TypeScript side is
clients/typescript/test/redirects.test.mjs (real servers on two ports), run here without a stack."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from lineup_client import UnexpectedAnswer

from codegen import typescript
from tests.support.channel_clients import async_client, sync_client
from tests.support.node import run, tool

LINEUP, ELSEWHERE = "lineup.test", "elsewhere.test"
LOGGED_IN = {"msg_code": "RESTAPI000", "msg": "ok", "token": "t1"}


class Origins:
    """Lineup's origin, which answers `status` to `redirected` paths, pointing at another origin that records
    whatever reaches it (an httpx transport: httpx follows redirects above it, when told to)."""

    def __init__(self, redirected: str, status: int) -> None:
        self.redirected, self.status = redirected, status
        self.lineup: list[tuple[str, str | None]] = []
        self.elsewhere: list[httpx.Request] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == ELSEWHERE:
            self.elsewhere.append(request)
            return httpx.Response(200, json=LOGGED_IN)
        self.lineup.append((request.url.path, request.headers.get("token")))
        if request.url.path == self.redirected:
            return httpx.Response(self.status, headers={"location": f"https://{ELSEWHERE}{request.url.path}"})
        return httpx.Response(200, json=LOGGED_IN)

    async def handle_async(self, request: httpx.Request) -> httpx.Response:
        return self.handle(request)


NOT_FOLLOWED = rf"HTTP 30\d is not Lineup's envelope: 'a redirect to https://{ELSEWHERE}/\w+, not followed'"


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("redirected", ["/authenticate", "/plan"])
async def test_the_async_client_sends_nothing_on_to_another_origin(redirected, status):
    origins = Origins(redirected, status)
    async with async_client(f"http://{LINEUP}", transport=httpx.MockTransport(origins.handle_async)) as lineup:
        with pytest.raises(UnexpectedAnswer, match=NOT_FOLLOWED):
            await lineup.plan_list()
    assert origins.elsewhere == []  # no password, PIN, body or token
    assert origins.lineup[-1][0] == redirected  # and the redirect was not repeated


@pytest.mark.parametrize("redirected", ["/authenticate", "/plan"])
def test_the_sync_client_sends_nothing_on_to_another_origin(redirected):
    origins = Origins(redirected, 307)
    lineup = sync_client(f"http://{LINEUP}", transport=httpx.MockTransport(origins.handle))
    with lineup, pytest.raises(UnexpectedAnswer, match=NOT_FOLLOWED):
        lineup.plan_list()
    assert origins.elsewhere == []
    assert origins.lineup[-1] == (redirected, "t1" if redirected == "/plan" else None)


async def test_the_typescript_client_sends_nothing_on_to_another_origin():
    await asyncio.to_thread(typescript.installed)
    output = await run(tool("node"), "--test", "test/redirects.test.mjs", cwd=typescript.ROOT)
    assert "# fail 0" in output and "# pass 0" not in output, output
