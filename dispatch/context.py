"""What every operation receives: who is calling, the request's unit of work, and the process's resources
(settings, Temporal, the field cipher, the payment gateway). Nothing from Starlette."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from temporalio.client import Client

from adapters.payments import PaymentGateway
from dispatch.gates import LoginGates
from dispatch.metrics import SnapshotCache
from models import events as actors
from models.crypto import FieldCipher
from models.settings import Settings
from orchestration.link import TemporalLink, outside_system
from persistence.agents import AgentRef
from persistence.engine import Database
from persistence.uow import UnitOfWork


@dataclass(frozen=True)
class Caller:
    """The token's vendor and API user, and the acting agent when one was named."""

    vendor_id: int
    vendor_code: str
    api_user_id: int
    login_log_id: int | None
    agent: AgentRef | None
    action: str
    require_payment: bool = False  # the vendor's: a line activates only once a settled payment covers its plan

    @property
    def agent_username(self) -> str | None:
        return self.agent.username if self.agent else None

    @property
    def actor(self) -> str:
        """Who acts, as the event log names them: the agent, or else the channel's API user."""
        return actors.agent(self.agent.username) if self.agent else actors.api_user(self.api_user_id)

    def request_key(self, external_transaction_id: str | None) -> str | None:
        """Unique per vendor and action; None when the channel sent no external_transaction_id."""
        if not external_transaction_id:
            return None
        return f"{self.vendor_id}:{self.action}:{external_transaction_id}"


@dataclass(frozen=True)
class Resources:
    """Built once per process (the API's lifespan) and shared by every request."""

    settings: Settings
    db: Database
    cipher: FieldCipher
    temporal: TemporalLink
    payments: PaymentGateway
    gates: LoginGates  # the rates and the verification queue of the doors that need no token
    scrapes: SnapshotCache  # /metrics' database snapshot, reused for LINEUP_METRICS_CACHE_SECONDS


@dataclass
class TokenChain:
    """The request's place in its session's token chain: the token its answer carries, stored when the request
    commits, unless the request ended the session (logout)."""

    fresh: str
    ended: bool = False

    def end(self) -> None:
        """The answer's token is not stored: the session ends with this request."""
        self.ended = True


@dataclass(frozen=True)
class Context:
    """One operation call. Anything that waits on another system goes through `outside` or `temporal_client`,
    which end the request's open transaction first: no connection and no lock is held while it waits."""

    caller: Caller
    uow: UnitOfWork
    resources: Resources
    request_id: str
    chain: TokenChain | None = None  # None outside the API's token chain (the console acts as an agent)

    @property
    def settings(self) -> Settings:
        return self.resources.settings

    @property
    def cipher(self) -> FieldCipher:
        return self.resources.cipher

    @property
    def fresh_token(self) -> str | None:
        """The token this call's answer carries."""
        return self.chain.fresh if self.chain else None

    @property
    def task_queue(self) -> str:
        return self.settings.temporal.task_queue

    async def temporal_client(self) -> Client:
        """The Temporal client, the request's transaction released (unavailable: the upstream-down refusal)."""
        await self.uow.commit_before_wait()
        return self.resources.temporal.client()

    @asynccontextmanager
    async def outside(self, system: str, *, within: float | None = None) -> AsyncIterator[None]:
        """A call to `system` answered within `within` seconds (default: the Temporal RPC deadline), its
        refusal or outage turned into the envelope decisions.md gives; the request's transaction released."""
        await self.uow.commit_before_wait()
        async with outside_system(system, within=within or self.settings.temporal.rpc_seconds):
            yield

    def lookup_seconds(self) -> float:
        """How long the API waits for a lookup: its budget, and a Temporal round trip to start and answer it."""
        return self.settings.systems.lookup_budget_seconds + self.settings.temporal.rpc_seconds


T = TypeVar("T")


@dataclass(frozen=True)
class Reply(Generic[T]):
    """An operation's answer when its message is its own, not "Success"."""

    msg: str
    data: T
