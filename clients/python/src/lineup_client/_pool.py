"""The idle token chains of one client. A token is good for one request, and every answer carries the next, so
each caller in flight holds a chain of its own; between calls a chain's next token waits here, newest first (the
newest is the least likely to have expired). A lock, never held across I/O, makes it safe across threads and
tasks alike."""

from __future__ import annotations

import threading


class TokenPool:
    def __init__(self) -> None:
        self._idle: list[str] = []
        self._lock = threading.Lock()

    def take(self) -> str | None:
        with self._lock:
            return self._idle.pop() if self._idle else None

    def give(self, token: str) -> None:
        with self._lock:
            self._idle.append(token)

    def clear(self) -> None:
        with self._lock:
            self._idle.clear()

    def __len__(self) -> int:
        return len(self._idle)
