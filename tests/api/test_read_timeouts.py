"""Read timeouts (issue 12, finding 7): over raw sockets against the API served by uvicorn with
api.server's protocol, as `lineup run` serves it. A request head that is not complete within
LINEUP_HEADER_TIMEOUT_SECONDS closes the connection unanswered; a body not complete within
LINEUP_BODY_TIMEOUT_SECONDS is answered RESTAPI110 (408 in `rest` mode) and its connection closed; an idle
connection between requests is closed after LINEUP_KEEP_ALIVE_SECONDS. Prompt clients are not cut."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import uvicorn
from uvicorn.importer import import_from_string

from api.edge import ReadTimeouts
from api.main import create_app
from cli.run import api_command
from models.settings import Settings

HEAD, BODY, KEEP_ALIVE = 1.0, 1.5, 1.0
SLACK = 1.0  # the machine is shared: a timer may fire this late
BOUNDS = {"header_timeout_seconds": HEAD, "body_timeout_seconds": BODY, "keep_alive_seconds": KEEP_ALIVE}
REQUEST_HEAD = b"POST /plan HTTP/1.1\r\nHost: lineup.test\r\nContent-Type: application/json\r\n"


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return dict(BOUNDS)


@asynccontextmanager
async def served(settings: Settings, protocol: type[ReadTimeouts] | None = None) -> AsyncIterator[int]:
    """The app under uvicorn on a free port, in this event loop; yields the port. The listener is bound as
    uvicorn binds it for `--workers` (its protocol number 0, not TCP's)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    app = create_app(settings)
    # A graceful-shutdown bound: without the feature a request would wait for its trickling body forever.
    http = protocol or ReadTimeouts.bound(settings)
    config = uvicorn.Config(app, http=http, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[listener]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield listener.getsockname()[1]
    finally:
        server.should_exit = True
        await task
        listener.close()


@pytest.fixture
async def port(settings: Settings) -> AsyncIterator[int]:
    async with served(settings) as bound_port:
        yield bound_port


class Connection:
    """A raw client connection; `trickle` sends bytes slowly in the background until the connection ends."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.sending: list[asyncio.Task[None]] = []

    @classmethod
    @asynccontextmanager
    async def to(cls, port: int) -> AsyncIterator[Connection]:
        connection = cls(*await asyncio.open_connection("127.0.0.1", port))
        try:
            yield connection
        finally:
            for task in connection.sending:
                task.cancel()
            connection.writer.close()

    def trickle(self, data: bytes, every: float = 0.2) -> None:
        self.sending.append(asyncio.create_task(self._trickle(data, every)))

    async def _trickle(self, data: bytes, every: float) -> None:
        with contextlib.suppress(ConnectionError):
            for byte in data:
                self.writer.write(bytes([byte]))
                await self.writer.drain()
                await asyncio.sleep(every)

    async def closed_after(self, *, within: float) -> tuple[float, bytes]:
        """Seconds until the server closed the connection, and what it sent before."""
        loop = asyncio.get_running_loop()
        began, received = loop.time(), b""
        with contextlib.suppress(ConnectionError):
            while chunk := await asyncio.wait_for(self.reader.read(65536), within):
                received += chunk
        return loop.time() - began, received

    async def answer(self) -> tuple[int, dict[str, str], dict[str, Any]]:
        head = (await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), BODY + SLACK)).decode()
        status_line, *lines = head.strip().split("\r\n")
        headers = {name.lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}
        body = await self.reader.readexactly(int(headers["content-length"]))
        return int(status_line.split()[1]), headers, json.loads(body)


async def test_answers_are_sent_at_once_on_a_socket_bound_as_uvicorns_workers_bind_it(settings):
    """asyncio turns Nagle's algorithm off only on sockets whose protocol number says TCP; uvicorn's socket for
    `--workers` N says 0, and then each answer on a kept-alive connection waited ~40 ms for a delayed ACK."""
    no_delay: list[int] = []

    class Recording(ReadTimeouts.bound(settings)):  # type: ignore[misc]
        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            no_delay.append(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    async with served(settings, Recording) as port, Connection.to(port) as client:
        for _ in range(2):
            client.writer.write(get("/healthz"))
            status, _, _ = await client.answer()
            assert status == 200
    assert no_delay == [1]


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: lineup.test\r\n\r\n".encode()


async def test_a_connection_that_sends_nothing_is_closed_after_the_header_timeout(port):
    async with Connection.to(port) as client:
        elapsed, received = await client.closed_after(within=HEAD + SLACK)
    assert received == b"" and elapsed >= HEAD * 0.9


async def test_a_request_head_trickling_in_is_cut_off_unanswered_at_the_header_timeout(port):
    """Bytes keep arriving (an idle timer would be reset by each), yet the head as a whole is late."""
    async with Connection.to(port) as client:
        client.trickle(REQUEST_HEAD + b"X-Slow: " + b"a" * 100)
        elapsed, received = await client.closed_after(within=HEAD + SLACK)
    assert received == b"" and elapsed >= HEAD * 0.9


@pytest.mark.parametrize(("mode", "status"), [("rest", 408), ("legacy", 200)])
async def test_a_body_trickling_in_is_answered_restapi110_and_the_connection_closed(settings, mode, status):
    async with served(settings.replaced(http_status=mode)) as port, Connection.to(port) as client:
        client.writer.write(REQUEST_HEAD + b"Content-Length: 500\r\n\r\n")
        client.trickle(b'{"action": "plan_list", "source": "API"' + b" " * 460)
        began = asyncio.get_running_loop().time()
        code, headers, envelope = await client.answer()
        waited = asyncio.get_running_loop().time() - began
        after, _ = await client.closed_after(within=SLACK)  # the rest of the body is not waited for
    assert (code, envelope["msg_code"]) == (status, "RESTAPI110")
    assert envelope["errors"] == [f"The request body was not received within {BODY:g} seconds"]
    assert headers["connection"] == "close" and BODY * 0.9 <= waited <= BODY + SLACK and after < SLACK


async def test_an_idle_connection_between_requests_is_closed_after_the_keep_alive(port):
    async with Connection.to(port) as client:
        client.writer.write(get("/healthz"))
        code, _, envelope = await client.answer()
        assert (code, envelope["msg_code"]) == (200, "RESTAPI000")
        elapsed, received = await client.closed_after(within=KEEP_ALIVE + SLACK)
    assert received == b"" and elapsed >= KEEP_ALIVE * 0.9


async def test_a_prompt_client_keeps_its_connection_for_several_requests(port):
    """Each request head has its own clock: the connection outlives several header timeouts, and a body sent
    in pieces within the bound is read whole."""
    async with Connection.to(port) as client:
        for _ in range(3):
            client.writer.write(get("/healthz")[:10])
            await asyncio.sleep(HEAD * 0.5)
            client.writer.write(get("/healthz")[10:])
            code, _, envelope = await client.answer()
            assert (code, envelope["msg_code"]) == (200, "RESTAPI000")
            await asyncio.sleep(KEEP_ALIVE * 0.6)  # idle, but less than the keep-alive
        body = b'{"action": "plan_list", "source": "API", "agent_id": "demo.agent"}'
        client.writer.write(REQUEST_HEAD + f"Content-Length: {len(body)}\r\n\r\n".encode() + body[:20])
        await asyncio.sleep(BODY * 0.5)
        client.writer.write(body[20:])
        code, _, envelope = await client.answer()
    assert envelope["msg_code"] == "RESTAPI001"  # read whole, then refused for the missing token as usual


def test_lineup_run_serves_the_api_with_the_read_timeouts(settings):
    assert "--http=api.edge:ReadTimeouts" in api_command(settings)
    assert import_from_string("api.edge:ReadTimeouts") is ReadTimeouts  # as uvicorn finds it by that name
