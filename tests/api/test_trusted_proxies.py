"""Whose X-Forwarded-For the API believes (issue 27, finding 11): only LINEUP_TRUSTED_PROXIES', and nobody's when it
is empty (the default). uvicorn's own default believed it from any loopback client, so a caller on the host could
name another address on every request and the login rates per address never held. The API served by uvicorn
over real sockets, with the proxy flags `lineup run` gives it (read by uvicorn's own command line)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
import uvicorn

from api.main import create_app
from cli.run import api_command, proxy_options
from models.settings import Settings
from tests.support.app import make_settings
from tests.support.console import sign_in

DEMO = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
THROTTLED = "Too many logins; try again shortly"
RATES = {"login_address_per_minute": 6, "console_sign_in_per_minute": 2}


@asynccontextmanager
async def served(settings: Settings) -> AsyncIterator[str]:
    """The app under uvicorn on a free port of 127.0.0.1, configured from `lineup run`'s proxy flags."""
    flags = uvicorn.main.make_context("uvicorn", ["api.main:app_from_env", *proxy_options(settings)]).params
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        create_app(settings),
        log_level="warning",
        proxy_headers=flags["proxy_headers"],
        forwarded_allow_ips=flags["forwarded_allow_ips"],
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[listener]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        listener.close()


def forwarded(url: str, address: str) -> httpx.AsyncClient:
    """A client on 127.0.0.1 that says it forwards a request from `address`."""
    headers = {"X-Forwarded-For": address, "X-Forwarded-Proto": "https"}
    return httpx.AsyncClient(base_url=url, headers=headers)


async def login(url: str, address: str) -> str:
    async with forwarded(url, address) as http:
        answer = (await http.post("/authenticate", json=DEMO)).json()
    return str(answer["errors"][0] if answer.get("errors") else answer["msg"])


async def console_sign_in(url: str, address: str) -> int:
    async with forwarded(url, address) as http:
        return (await sign_in(http, "nobody.here", "wrong-pass")).status_code


@pytest.fixture
def spoofed_settings(data_dir, sqlite_url) -> Settings:
    return make_settings(data_dir, sqlite_url, **RATES)


async def test_spoofed_forwarding_headers_are_ignored_by_the_login_limits(spoofed_settings):
    assert "--no-proxy-headers" in api_command(spoofed_settings)  # the default: no proxy is trusted
    async with served(spoofed_settings) as url:
        assert await login(url, "198.51.100.1") == "Successfully Authenticate"
        assert await login(url, "198.51.100.2") == THROTTLED  # another "address" each time: still this client's
        assert [await console_sign_in(url, f"198.51.100.{n}") for n in range(3, 6)] == [401, 401, 429]


async def test_a_trusted_proxys_forwarding_header_names_the_client(data_dir, sqlite_url):
    settings = make_settings(data_dir, sqlite_url, trusted_proxies="127.0.0.1, 10.0.0.0/8", **RATES)
    assert proxy_options(settings) == ["--proxy-headers", "--forwarded-allow-ips=127.0.0.1,10.0.0.0/8"]
    async with served(settings) as url:
        assert await login(url, "198.51.100.1") == "Successfully Authenticate"
        assert await login(url, "198.51.100.2") == "Successfully Authenticate"  # two clients behind the proxy
        assert await login(url, "198.51.100.2") == THROTTLED
        assert [await console_sign_in(url, "198.51.100.3") for _ in range(3)] == [401, 401, 429]
        assert await console_sign_in(url, "198.51.100.4") == 401


def test_a_trusted_proxy_that_is_not_an_address_is_refused_at_start(data_dir, sqlite_url):
    with pytest.raises(ValueError, match=r"LINEUP_TRUSTED_PROXIES: 'proxy\.internal' is not an address or a network"):
        make_settings(data_dir, sqlite_url, trusted_proxies="10.0.0.1,proxy.internal")
