"""A TCP proxy in front of the API that loses answers: the connection of a request containing `marker` is cut as
soon as the API begins to answer it, so the request was carried out and its client never hears how. What a
channel sees when a load balancer or a mobile network drops a connection mid-call."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

CHUNK = 65_536
Doom = asyncio.Event  # set once the connection's current request is one whose answer is to be lost


class CuttingProxy:
    def __init__(self, upstream: int, marker: bytes, cuts: int = 1) -> None:
        self.upstream, self.marker, self.left = upstream, marker, cuts
        self.seen = 0  # requests with the marker that went through to the API
        self.cut = 0  # answers the proxy dropped
        self.url = ""

    @classmethod
    @asynccontextmanager
    async def running(cls, upstream_url: str, marker: bytes, cuts: int = 1) -> AsyncIterator[CuttingProxy]:
        proxy = cls(int(upstream_url.rsplit(":", 1)[1]), marker, cuts)
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        server = await asyncio.start_server(proxy._connection, sock=listener)
        proxy.url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        try:
            yield proxy
        finally:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2)

    async def _connection(self, client: asyncio.StreamReader, to_client: asyncio.StreamWriter) -> None:
        api, to_api = await asyncio.open_connection("127.0.0.1", self.upstream)
        doomed = asyncio.Event()
        try:
            await asyncio.gather(self._requests(client, to_api, doomed), self._answers(api, to_client, doomed))
        except (ConnectionError, OSError):
            pass
        finally:
            for writer in (to_api, to_client):
                writer.close()

    async def _requests(self, client: asyncio.StreamReader, to_api: asyncio.StreamWriter, doomed: Doom) -> None:
        tail = b""
        while data := await client.read(CHUNK):
            tail = (tail + data)[-(CHUNK + len(self.marker)) :]
            if self.marker in tail:
                tail, self.seen = b"", self.seen + 1
                if self.left > 0:
                    self.left -= 1
                    doomed.set()  # keep-alive: the answers before this request were read in full already
            to_api.write(data)
            await to_api.drain()

    async def _answers(self, api: asyncio.StreamReader, to_client: asyncio.StreamWriter, doomed: Doom) -> None:
        while data := await api.read(CHUNK):
            if doomed.is_set():
                self.cut += 1
                to_client.transport.abort()  # the client's connection is gone, with the answer unsent
                return
            to_client.write(data)
            await to_client.drain()
