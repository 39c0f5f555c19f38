"""Who may call what: the checks api.dispatch runs after the token, in decisions.md's order (source, agent, company,
agent password, role); and the gates before any argon2 where no token is needed (/authenticate, the console sign-in):
rates per client address and overall, checked in memory first, and a bounded verification queue, so a flood of logins
is refused cheaply instead of holding every core and real login behind it. Per process: N API processes admit N
times the overall rate, each behind its own queue."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlmodel import col

from models.auth import LOCKED, Agent, AgentRef, Throttle, claim_login, settle_login
from models.crypto import verify_secret_async
from models.db import UnitOfWork
from models.envelope import LineupError, MsgCode
from models.settings import Settings
from models.types import malformed

CORE_SOURCES = frozenset({"API", "TABLET", "WEBSITE"})
WEB_SOURCES = frozenset({"API", "WEBSITE"})
VOICE_SOURCES = CORE_SOURCES | {"IVR"}
ALL_SOURCES = VOICE_SOURCES | {"CSR"}
PORTAL_SOURCE = "ENROLLMENT_PORTAL"  # the samples' source, accepted on every operation (decisions.md)
INVALID_PASSWORD = "Invalid Agent ID or Password"  # decisions.md's answer to a missing or wrong agent password
MOST_AGENT_NAME = 100  # the column's length: a longer name names no agent
# What a login refused by a rate or a full queue answers (before its secret was even looked at).
THROTTLED = "Too many logins; try again shortly"
TRACKED_MOST = 10_000  # client addresses remembered at once; idle ones are forgotten first


class Busy(Exception):
    """Every verification slot is taken and the queue is full: the login is refused unverified."""


def check_source(source: object, sources: frozenset[str], *, required: bool, settings: Settings) -> None:
    text = source.strip().upper() if isinstance(source, str) else ""
    if not text:
        if required:
            raise LineupError(MsgCode.SOURCE, "Source can not be blank")
        return
    if text not in sources and text != PORTAL_SOURCE and text not in settings.api.extra_source_list:
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


def own_agent(agent: AgentRef | None, username: str | None) -> str:
    """The name a token of an agent's own API credentials acts under: its agent's, named or not. Another name is
    refused as an unknown one is: such a token is that agent's, not its vendor's (decisions.md, "Who calls")."""
    if agent is None or (username is not None and username != agent.username):
        raise LineupError(MsgCode.AGENT, "Invalid Agent Id")
    return agent.username


def check_agent(agent: AgentRef | None, username: str | None, vendor_id: int, *, required: bool) -> bool:
    """The agent rules but the password; True when the agent's API password must be checked next."""
    if username is None:
        if required:
            raise LineupError(MsgCode.AGENT, "Agent Id should not be blank")
        return False
    if agent is None or not agent.active:
        # Agents are found among the token's vendor's only: another vendor's agent_id is unknown here, and
        # saying `Invalid company` would tell a channel which names other vendors use.
        raise LineupError(MsgCode.AGENT, "Invalid Agent Id")
    if agent.vendor_id != vendor_id:  # kept in its place of the order; the lookup makes it unreachable
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    return agent.requires_api_password


async def check_agent_password(uow: UnitOfWork, settings: Settings, agent: AgentRef, offered: object) -> None:
    """The agent's API password, throttled as /authenticate is (`verify_agent_secret`)."""
    if not isinstance(offered, str) or malformed(offered):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD)
    if not await verify_agent_secret(uow, settings, agent.id, agent.api_password_hash, offered):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD)


async def verify_agent_secret(
    uow: UnitOfWork, settings: Settings, agent_id: int, hashed: str | None, offered: str
) -> bool:
    """Whether `offered` is the agent's secret `hashed`, throttled on the agent's row as logins are (a locked agent is
    refused). The request's transaction commits first: argon2 and the throttle's waits hold neither a connection nor
    a lock, and the count commits whatever the request comes to."""
    await uow.commit_before_wait()
    throttle, row = Throttle.of(settings), col(Agent.id) == agent_id
    if not await claim_login(uow, Agent, row, throttle):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [LOCKED], rest_status=429)
    ok = await verify_secret_async(hashed, offered)
    await settle_login(uow, Agent, row, throttle, ok=ok)
    return ok


def check_role(role: str | None, agent: AgentRef | None) -> None:
    if role is not None and (agent is None or role not in agent.roles):
        # The role the agent lacks, so a channel knows what to ask its vendor for.
        raise LineupError(MsgCode.UNAUTHORIZED, "Unauthorized Access", [f"This operation needs the {role} role"])


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
        total = {"total_second": auth.login_total_per_second, "total_burst": auth.login_total_per_second * 3}
        per_minute, console_per_minute = auth.login_address_per_minute, auth.console_sign_in_per_minute
        return cls(
            RateLimits(per_address_minute=per_minute, address_burst=per_minute / 10, **total),
            RateLimits(per_address_minute=console_per_minute, address_burst=console_per_minute, **total),
            VerifyQueue(concurrency=auth.login_verify_concurrency, waiting=auth.login_verify_queue),
        )


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
        return bucket.take(now) and self.total.take(now)

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


class Bucket:
    """A token bucket: `burst` attempts at once (it begins full), refilled at `per_second`."""

    def __init__(self, per_second: float, burst: float, *, at: float | None = None) -> None:
        self.per_second, self.burst, self.tokens = per_second, burst, burst
        self.at = time.monotonic() if at is None else at

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.at) * self.per_second >= self.burst
