"""What stands before any argon2 at the doors that need no token (/authenticate, the console's sign-in): rates per
client address and overall, checked in memory before the database is even read, and a bounded queue of
verifications, so a flood of logins is refused cheaply instead of holding every core (and every real login)
behind it. Per process: N API processes admit N times the overall rate, each behind its own queue."""

from __future__ import annotations

# dispatch/access.py: Who may call what, in decisions.md's order: token → action → source → agent → company → agent password →
import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol

from models.auth import LOCKED, AgentRef, Throttle, claim_agent_attempt, settle_agent_attempt
from models.crypto import verify_secret_async
from models.db import UnitOfWork
from models.envelope import LineupError, MsgCode
from models.settings import Settings
from models.types import malformed

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


MOST_AGENT_NAME = 100  # the column's length: a longer name names no agent


INVALID_PASSWORD = "Invalid Agent ID or Password"
CORE_SOURCES = frozenset({"API", "TABLET", "WEBSITE"})
WEB_SOURCES = frozenset({"API", "WEBSITE"})
VOICE_SOURCES = CORE_SOURCES | {"IVR"}
ALL_SOURCES = VOICE_SOURCES | {"CSR"}
PORTAL_SOURCE = "ENROLLMENT_PORTAL"  # the samples' source, accepted on every operation (decisions.md)


class Rules(Protocol):
    """What the checks read of an action's declaration (api.dispatch.Action)."""

    @property
    def sources(self) -> frozenset[str]: ...
    @property
    def source_required(self) -> bool: ...
    @property
    def agent_required(self) -> bool: ...
    @property
    def role(self) -> str | None: ...


def check_source(action: Rules, source: object, settings: Settings) -> None:
    text = source.strip().upper() if isinstance(source, str) else ""
    if not text:
        if action.source_required:
            raise LineupError(MsgCode.SOURCE, "Source can not be blank")
        return
    if text not in action.sources and text != PORTAL_SOURCE and text not in settings.api.extra_source_list:
        raise LineupError(MsgCode.SOURCE, "Source Not Allowed")


def agent_name(agent_id: object) -> str | None:
    """The agent a body names (samples send some ids as numbers); a name no agent could have names none."""
    if isinstance(agent_id, bool) or not isinstance(agent_id, str | int):
        return None
    return str(agent_id).strip() or None


def named_agent_refusal(username: str | None) -> LineupError | None:
    """A name that cannot be an agent's: no agent is named like that, and the database could not take it."""
    if username is not None and (malformed(username) or len(username) > MOST_AGENT_NAME):
        return LineupError(MsgCode.AGENT, "Invalid Agent Id")
    return None


def check_agent(action: Rules, agent: AgentRef | None, username: str | None, vendor_id: int) -> bool:
    """The agent rules but the password; True when the agent's API password must be checked next."""
    if username is None:
        if action.agent_required:
            raise LineupError(MsgCode.AGENT, "Agent Id should not be blank")
    elif agent is None or not agent.active:
        # Agents are found among the token's vendor's only: another vendor's agent_id is unknown here, and
        # saying `Invalid company` would tell a channel which names other vendors use.
        raise LineupError(MsgCode.AGENT, "Invalid Agent Id")
    elif agent.vendor_id != vendor_id:  # kept in its place of the order; the lookup makes it unreachable
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    elif agent.requires_api_password:
        return True
    return False


def check_role(action: Rules, agent: AgentRef | None) -> None:
    if action.role is not None and (agent is None or action.role not in agent.roles):
        raise LineupError(MsgCode.UNAUTHORIZED, "Unauthorized Access", [needs_role(action.role)])


def needs_role(role: str) -> str:
    """RESTAPI109's error: the role the agent lacks, so a channel knows what to ask its vendor for."""
    return f"This operation needs the {role} role"


async def check_agent_password(uow: UnitOfWork, settings: Settings, agent: AgentRef, offered: object) -> None:
    """The agent's API password, throttled as /authenticate is: the attempt is counted before the password is
    verified, so parallel guesses cannot outrun the lockout, and settled after: only a wrong password is counted,
    a right one clears the count. The request's transaction is released first: argon2 and the throttle's waits
    hold neither a connection nor a lock, and the count commits whatever the request comes to."""
    if not isinstance(offered, str) or malformed(offered):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD)
    await uow.commit_before_wait()
    throttle = Throttle.of(settings)
    if not await claim_agent_attempt(uow, agent.id, throttle):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [LOCKED], rest_status=429)
    ok = await verify_secret_async(agent.api_password_hash, offered)
    await settle_agent_attempt(uow, agent.id, throttle, ok=ok)
    if not ok:
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD)
