"""What `lineup run` needs to keep its children in hand: they die with it, their ports are checked before they
start (naming whoever holds one), and a child that dies has the end of its log shown."""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
TAIL_LINES = 20
LISTEN = "0A"  # the TCP state column of /proc/net/tcp[6]
# Loaded here, in the parent: between fork and exec the child only calls it (loading a library there is unsafe).
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None


def dies_with_this_process(signum: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A `preexec_fn` that makes the child receive `signum` when this process ends, however it ends (SIGKILL
    included): the Linux parent-death signal, which survives exec. None where there is no such signal.

    SIGKILL by default: once the launcher is gone, nobody is left to escalate a SIGTERM a child would not
    honour, and every child keeps its state crash-safe (SQLite WAL, PostgreSQL, Temporal histories)."""
    if _LIBC is None:
        return None
    parent = os.getpid()
    libc = _LIBC

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        # The parent may have died between fork and prctl: the signal would then never come.
        if os.getppid() != parent:
            os.kill(os.getpid(), signum)

    return preexec


@dataclass(frozen=True)
class Holder:
    """A process holding a port: its pid and command line."""

    pid: int
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid} ({self.command})"


def port_is_free(host: str, port: int) -> bool:
    """Whether a server could bind host:port now. SO_REUSEADDR as servers set it, so a connection of an
    earlier run waiting in TIME_WAIT does not count as taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def _socket_inodes(port: int) -> set[str]:
    """Inodes of the TCP sockets bound to `port` (listening ones first in line, but any bound one counts)."""
    inodes: set[str] = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        try:
            rows = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) < 10:
                continue
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[9] != "0" and fields[3] in (LISTEN, "07"):  # 07: bound, not listening
                inodes.add(fields[9])
    return inodes


def _process_ids() -> Iterator[int]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            yield int(entry.name)


def _command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part) or "?"


def port_holder(port: int) -> Holder | None:
    """The process holding `port`, from /proc/net/tcp[6] and the socket inodes under /proc/<pid>/fd; None when
    it cannot be read (another user's process, another network namespace)."""
    wanted = {f"socket:[{inode}]" for inode in _socket_inodes(port)}
    if not wanted:
        return None
    for pid in _process_ids():
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) in wanted:
                    return Holder(pid, _command_line(pid))
            except OSError:
                continue
    return None


def taken_ports(child: str, ports: list[tuple[str, int]]) -> str | None:
    """Why `child` cannot start, naming the first taken port and its holder; None when all are free."""
    for host, port in ports:
        if not port_is_free(host, port):
            holder = port_holder(port)
            who = str(holder) if holder else "another process"
            return (
                f"lineup: cannot start {child}: port {port} ({host}) is taken by {who}; "
                "stop it (an earlier `lineup run`?) or choose another port"
            )
    return None


def log_tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last `lines` lines of a log, read from its end (a log may be large)."""
    try:
        with open(path, "rb") as log:
            log.seek(0, os.SEEK_END)
            size = log.tell()
            log.seek(max(0, size - 64 * 1024))
            text = log.read().decode(errors="replace")
    except OSError:
        return f"(no log at {path})"
    tail = text.splitlines()[-lines:]
    return "\n".join(tail) if tail else f"({path} is empty)"
