"""Free TCP ports, so the bench never meets a `make run` on the default ones."""

from __future__ import annotations

import socket


def free_ports(count: int) -> list[int]:
    """`count` distinct ports free right now (held open together so the kernel cannot repeat one)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in probes]
    finally:
        for probe in probes:
            probe.close()
