"""What every operation receives: who is calling, the request's unit of work, and the process's
resources (settings, Temporal, the field cipher, the payment gateway). Nothing from Starlette."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adapters.payments import PaymentGateway
from models.crypto import FieldCipher
from models.settings import Settings
from persistence.agents import AgentRef
from persistence.engine import Database
from persistence.uow import UnitOfWork
from services.temporal import TemporalLink


@dataclass(frozen=True)
class Caller:
    """The token's vendor and API user, and the acting agent when one was named."""

    vendor_id: int
    vendor_code: str
    api_user_id: int
    login_log_id: int | None
    agent: AgentRef | None
    action: str

    @property
    def agent_username(self) -> str | None:
        return self.agent.username if self.agent else None

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


@dataclass(frozen=True)
class Context:
    """One operation call."""

    caller: Caller
    uow: UnitOfWork
    settings: Settings
    cipher: FieldCipher
    temporal: TemporalLink
    payments: PaymentGateway
    request_id: str
    fresh_token: str | None = None  # the token this call's answer carries

    @classmethod
    def of(
        cls, resources: Resources, *, caller: Caller, uow: UnitOfWork, request_id: str, fresh_token: str | None
    ) -> Context:
        return cls(
            caller=caller, uow=uow, settings=resources.settings, cipher=resources.cipher,
            temporal=resources.temporal, payments=resources.payments, request_id=request_id, fresh_token=fresh_token,
        )  # fmt: skip


@dataclass(frozen=True)
class Reply:
    """An operation's answer when its message is its own, not "Success"."""

    msg: str
    data: Any = None
