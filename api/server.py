"""The HTTP/1.1 protocol uvicorn serves the API with (`--http=api.server:ReadTimeouts`): uvicorn's h11
protocol plus the read timeouts it lacks. A connection whose request head is not complete within
LINEUP_HEADER_TIMEOUT_SECONDS of its first byte (or of connecting) is closed; one idle between requests for
LINEUP_KEEP_ALIVE_SECONDS is closed. The body's own bound is api.middleware.BodyDeadline: there an answer can
still be sent.

Importing this module in a uvicorn worker process (`--workers` N > 1) also ties the worker to its master: see
end_with_the_master."""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import signal
import socket
import sys
from typing import ClassVar

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from models.settings import Settings, get_settings

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def end_with_the_master() -> None:
    """In a uvicorn worker process, asks Linux for SIGTERM when the master dies, however it dies. Without it a
    SIGKILLed master (an OOM kill, a `kill -9`) left its workers serving the shared socket, unsupervised, and
    the next start failed with "Address already in use". SIGTERM is what the master itself sends its workers
    on a stop: the worker closes the socket at once and finishes the requests it is answering, which the
    read timeouts bound. uvicorn starts workers with multiprocessing's spawn, which imports this module (the
    `--http` protocol) before serving; a single process (`--workers 1`) has no master and is left alone."""
    master = multiprocessing.parent_process()
    if master is None or sys.platform != "linux":
        return
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    # The master may have died before the call: then no signal would ever come.
    if os.getppid() != master.pid:
        os.kill(os.getpid(), signal.SIGTERM)


end_with_the_master()


def no_delay(transport: asyncio.Transport) -> None:
    """Turns Nagle's algorithm off. asyncio does so only for sockets whose protocol number says TCP, and the
    socket uvicorn binds for `--workers` N > 1 (what LINEUP_API_PROCESSES sets) says 0: without this, every
    answer on a kept-alive connection waited ~40 ms for the client's delayed ACK (23 answers a second for one
    client, 722 for 32 connections, against 3,909 from one process)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class ReadTimeouts(H11Protocol):
    # None: the environment's settings (uvicorn imports the class by name); tests bind their own with `bound`.
    settings: ClassVar[Settings | None] = None

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, object],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        settings = self.settings or get_settings()
        self.header_timeout = settings.api.header_timeout_seconds
        # uvicorn's own keep-alive timer, armed after each response; its setting takes whole seconds only.
        self.timeout_keep_alive = settings.api.keep_alive_seconds  # type: ignore[assignment]
        self._head_timer: asyncio.TimerHandle | None = None

    @classmethod
    def bound(cls, settings: Settings) -> type[ReadTimeouts]:
        """The protocol with `settings`' timeouts rather than the environment's."""
        return type(cls.__name__, (cls,), {"settings": settings})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        no_delay(transport)
        self._start_head_timer()  # a connection that never says anything is a slow head too

    def data_received(self, data: bytes) -> None:
        # The first byte of a new request starts its head's clock (after a keep-alive wait, say).
        if self._head_timer is None and self.conn.their_state is h11.IDLE:
            self._start_head_timer()
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the head is complete: the body has its own bound
            self._stop_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _start_head_timer(self) -> None:
        self._stop_head_timer()
        self._head_timer = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        """No answer: a client this slow to ask is either gone or holding the connection on purpose."""
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()
