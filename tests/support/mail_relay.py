"""A relay that refuses every recipient for good (550), on a port of its own: the `refusing_relay` fixture,
registered for every test by the root conftest's pytest_plugins; a test points the stack's smtp_port at
REFUSING_PORT."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller

from bench.ports import free_port

REFUSING_PORT = free_port()


class Refusing:
    """Refuses every recipient for good."""

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:
        return "550 5.1.1 Mailbox does not exist"


@pytest.fixture
def refusing_relay() -> Iterator[int]:
    controller = Controller(Refusing(), hostname="127.0.0.1", port=REFUSING_PORT)
    controller.start()
    yield REFUSING_PORT
    controller.stop()
