"""What stands before any argon2 at the doors that need no token (/authenticate, the console's sign-in): rates per
client address and overall, checked in memory before the database is even read, and a bounded queue of
verifications, so a flood of logins is refused cheaply instead of holding every core (and every real login)
behind it. Per process: N API processes admit N times the overall rate, each behind its own queue."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from models.settings import Settings

# What a login refused by a rate or a full queue answers (before its secret was even looked at).
THROTTLED = "Too many logins; try again shortly"
TRACKED_MOST = 10_000  # client addresses remembered at once; idle ones are forgotten first


class Busy(Exception):
    """Every verification slot is taken and the queue is full: the login is refused unverified."""


@dataclass
class Bucket:
    """A token bucket: `burst` attempts at once, refilled at `per_second`."""

    per_second: float
    burst: float
    tokens: float = -1.0
    at: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.burst

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.at) * self.per_second >= self.burst


class RateLimits:
    """One door's rates: a bucket per client address and one for everyone."""

    def __init__(self, *, per_address_minute: float, address_burst: float, total_second: float, total_burst: float):
        self.per_address, self.address_burst = per_address_minute / 60, max(1.0, address_burst)
        self.total = Bucket(total_second, max(1.0, total_burst))
        self.addresses: dict[str, Bucket] = {}

    def admit(self, address: str | None) -> bool:
        """False when this address, or everyone together, began too many logins lately."""
        now = time.monotonic()
        key = address or "unknown"
        bucket = self.addresses.get(key)
        if bucket is None:
            self._forget_idle(now)
            bucket = self.addresses[key] = Bucket(self.per_address, self.address_burst, at=now)
        if not bucket.take(now):
            return False
        return self.total.take(now)

    def _forget_idle(self, now: float) -> None:
        """Keeps the table bounded: an address whose bucket is full again is as good as new."""
        if len(self.addresses) < TRACKED_MOST:
            return
        self.addresses = {key: bucket for key, bucket in self.addresses.items() if not bucket.full(now)}
        while len(self.addresses) >= TRACKED_MOST:  # all busy: the oldest go
            del self.addresses[next(iter(self.addresses))]


class VerifyQueue:
    """At most `concurrency` verifications at once; at most `waiting` more wait for a slot, the rest are Busy."""

    def __init__(self, *, concurrency: int, waiting: int) -> None:
        self.slots, self.most_waiting, self.waiting = asyncio.Semaphore(concurrency), waiting, 0

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        if self.slots.locked() and self.waiting >= self.most_waiting:
            raise Busy
        self.waiting += 1
        try:
            await self.slots.acquire()
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            self.slots.release()


@dataclass(frozen=True)
class LoginGates:
    """The process's gates: /authenticate's rates, the console sign-in's own, and the verification queue both
    share (the CPU they protect is one)."""

    api: RateLimits
    console: RateLimits
    queue: VerifyQueue

    @classmethod
    def of(cls, settings: Settings) -> LoginGates:
        auth = settings.auth
        api = RateLimits(
            per_address_minute=auth.login_address_per_minute,
            address_burst=auth.login_address_per_minute / 10,
            total_second=auth.login_total_per_second,
            total_burst=auth.login_total_per_second * 3,
        )
        console = RateLimits(
            per_address_minute=auth.console_sign_in_per_minute,
            address_burst=auth.console_sign_in_per_minute,
            total_second=auth.login_total_per_second,
            total_burst=auth.login_total_per_second * 3,
        )
        return cls(
            api, console, VerifyQueue(concurrency=auth.login_verify_concurrency, waiting=auth.login_verify_queue)
        )
