"""Whose X-Forwarded-For the API believes (issue 27, finding 11): only LINEUP_TRUSTED_PROXIES', and nobody's when it
is empty (the default). uvicorn's own default believed it from any loopback client, so a caller on the host could
name another address on every request and the login rates per address never held.

Issue 35, finding 7: that rule was only flags `lineup run` gave uvicorn, and the API started with plain `uvicorn
api.main:app_from_env --factory` believed the header from the local machine. The app applies the rule itself
(api.edge.TrustedProxies), so it holds whatever server runs it; `lineup run` and `make api` turn uvicorn's own
handling off. The API is served by uvicorn over real sockets, configured by uvicorn's own command line from the
flags each way of starting it gives."""

from __future__ import annotations

import asyncio
import logging
import shlex
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from api.edge import TrustedProxies
from api.main import create_app
from cli.run import api_command
from models.settings import Settings
from tests.support.app import make_settings
from tests.support.console import sign_in

DEMO = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
THROTTLED = "Too many logins; try again shortly"
RATES = {"login_address_per_minute": 6, "console_sign_in_per_minute": 2}
MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"
PLAIN = ["api.main:app_from_env", "--factory"]  # uvicorn as anyone would start it, its defaults untouched


def proxy_headers(arguments: list[str]) -> bool:
    """Whether uvicorn's command line, given `arguments`, has uvicorn believe forwarding headers itself."""
    return bool(parsed(arguments)["proxy_headers"])


def parsed(arguments: list[str]) -> dict[str, Any]:
    return uvicorn.main.make_context("uvicorn", list(arguments)).params  # click consumes the list it is given


def lineup_run(settings: Settings) -> list[str]:
    """uvicorn's arguments in `lineup run`'s command line (after `python -m uvicorn`)."""
    command = api_command(settings)
    return command[command.index("uvicorn") + 1 :]


def make_api() -> list[str]:
    """uvicorn's arguments in the Makefile's `api` target."""
    lines = MAKEFILE.read_text().splitlines()
    recipe = lines[lines.index("api: install") + 1]
    words = shlex.split(recipe)
    return words[words.index("$(BIN)/uvicorn") + 1 :]


@asynccontextmanager
async def served(settings: Settings, arguments: list[str]) -> AsyncIterator[str]:
    """The app under uvicorn on a free port of 127.0.0.1, with the proxy handling uvicorn's command line makes of
    `arguments`."""
    flags = parsed(arguments)
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
def spoofed_settings(data_dir, sqlite_url, monkeypatch) -> Settings:
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)  # uvicorn's own default: 127.0.0.1 and ::1
    return make_settings(data_dir, sqlite_url, **RATES)


@pytest.fixture
def trusted_settings(data_dir, sqlite_url) -> Settings:
    return make_settings(data_dir, sqlite_url, trusted_proxies="127.0.0.1, 10.0.0.0/8", **RATES)


async def spoofs_are_ignored(url: str) -> None:
    assert await login(url, "198.51.100.1") == "Successfully Authenticate"
    assert await login(url, "198.51.100.2") == THROTTLED  # another "address" each time: still this client's
    assert [await console_sign_in(url, f"198.51.100.{n}") for n in range(3, 6)] == [401, 401, 429]


async def test_spoofed_forwarding_headers_are_ignored_by_the_login_limits(spoofed_settings):
    async with served(spoofed_settings, lineup_run(spoofed_settings)) as url:
        await spoofs_are_ignored(url)


async def test_spoofed_forwarding_headers_are_ignored_under_plain_uvicorn(spoofed_settings, caplog):
    """uvicorn believes the header from 127.0.0.1 before the app runs: the app finds the address it was handed
    named by the header, and counts the request as from one unknown address, with one warning."""
    assert proxy_headers(PLAIN)  # uvicorn's default
    with caplog.at_level(logging.WARNING, logger="lineup.access"):
        async with served(spoofed_settings, PLAIN) as url:
            await spoofs_are_ignored(url)
    warned = [record for record in caplog.records if "X-Forwarded-For" in record.getMessage()]
    assert len(warned) == 1 and "--no-proxy-headers" in warned[0].getMessage()


@pytest.mark.parametrize("started_by", ["lineup run", "make api"])
async def test_a_trusted_proxys_forwarding_header_names_the_client(trusted_settings, started_by):
    arguments = lineup_run(trusted_settings) if started_by == "lineup run" else make_api()
    async with served(trusted_settings, arguments) as url:
        assert await login(url, "198.51.100.1") == "Successfully Authenticate"
        assert await login(url, "198.51.100.2") == "Successfully Authenticate"  # two clients behind the proxy
        assert await login(url, "198.51.100.2") == THROTTLED
        assert [await console_sign_in(url, "198.51.100.3") for _ in range(3)] == [401, 401, 429]
        assert await console_sign_in(url, "198.51.100.4") == 401


def test_lineup_run_and_make_api_turn_uvicorns_own_proxy_handling_off(spoofed_settings, trusted_settings):
    """The app sees the socket's peer, and applies LINEUP_TRUSTED_PROXIES to it itself."""
    for arguments in (lineup_run(spoofed_settings), lineup_run(trusted_settings), make_api()):
        assert not proxy_headers(arguments), arguments


def test_a_trusted_proxy_that_is_not_an_address_is_refused_at_start(data_dir, sqlite_url):
    with pytest.raises(ValueError, match=r"LINEUP_TRUSTED_PROXIES: 'proxy\.internal' is not an address or a network"):
        make_settings(data_dir, sqlite_url, trusted_proxies="10.0.0.1,proxy.internal")


# The rule itself, on the ASGI scope any server hands the app.


async def client_seen(settings: Settings, peer: tuple[str, int] | None, forwarded_for: str | None) -> object:
    """The client address the app behind TrustedProxies sees for a request from `peer`."""
    seen: list[object] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["client"])

    headers = [(b"x-forwarded-for", forwarded_for.encode())] if forwarded_for is not None else []
    scope = {"type": "http", "client": peer, "headers": headers, "scheme": "http", "path": "/authenticate"}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        pass

    await TrustedProxies(app, settings)(scope, receive, send)
    return seen[0]


async def test_with_no_trusted_proxy_the_socket_peer_is_the_client(spoofed_settings):
    assert await client_seen(spoofed_settings, ("127.0.0.1", 50000), "198.51.100.7") == ("127.0.0.1", 50000)
    assert await client_seen(spoofed_settings, ("10.0.0.5", 50000), "198.51.100.7") == ("10.0.0.5", 50000)
    assert await client_seen(spoofed_settings, ("127.0.0.1", 50000), None) == ("127.0.0.1", 50000)


async def test_a_trusted_proxys_header_names_the_nearest_address_not_itself_a_proxy(trusted_settings):
    assert await client_seen(trusted_settings, ("127.0.0.1", 50000), "198.51.100.7") == ("198.51.100.7", 0)
    assert await client_seen(trusted_settings, ("10.0.0.5", 50000), "203.0.113.9, 198.51.100.7") == (
        "198.51.100.7",
        0,
    )  # the client may have written anything to the left of what our proxy appended
    assert await client_seen(trusted_settings, ("10.0.0.5", 50000), "198.51.100.7, 10.0.0.6") == ("198.51.100.7", 0)
    # A server listening on `::` sees an IPv4 proxy in its IPv4-mapped form.
    assert await client_seen(trusted_settings, ("::ffff:10.0.0.5", 50000), "198.51.100.7") == ("198.51.100.7", 0)
    assert await client_seen(trusted_settings, ("192.0.2.1", 50000), "198.51.100.7") == ("192.0.2.1", 50000)


async def test_an_address_the_server_took_from_the_header_counts_as_unknown(spoofed_settings):
    assert await client_seen(spoofed_settings, ("198.51.100.7", 0), "198.51.100.7") is None
    assert await client_seen(spoofed_settings, ("198.51.100.7", 8443), "203.0.113.9, 198.51.100.7:8443") is None
    assert await client_seen(spoofed_settings, ("2001:db8::7", 0), "[2001:db8::7]:443") is None
