"""Agents as the access checks and services see them: plain values read once per request, so nothing
expires or lazy-loads after a rolled-back transaction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, cast

from models.tables.agents import Agent, role_set
from persistence.core import table


class AgentFields(Protocol):
    """An agent's columns as a row of AGENT_COLUMNS carries them."""

    @property
    def id(self) -> int: ...
    @property
    def username(self) -> str: ...
    @property
    def vendor_id(self) -> int: ...
    @property
    def active(self) -> bool: ...
    @property
    def roles(self) -> str: ...
    @property
    def email(self) -> str | None: ...
    @property
    def requires_api_password(self) -> bool: ...
    @property
    def api_password_hash(self) -> str | None: ...


@dataclass(frozen=True)
class AgentRef:
    id: int
    username: str
    vendor_id: int
    active: bool
    roles: frozenset[str]
    email: str | None = None
    requires_api_password: bool = False
    api_password_hash: str | None = None

    @classmethod
    def of_entity(cls, agent: Agent) -> AgentRef:
        """From an Agent read from the database (so it has its id)."""
        assert agent.id is not None
        return cls.of(cast(AgentFields, agent))

    @classmethod
    def of(cls, row: AgentFields) -> AgentRef:
        """From a row of AGENT_COLUMNS."""
        return cls(
            id=row.id,
            username=row.username,
            vendor_id=row.vendor_id,
            active=row.active,
            roles=role_set(row.roles),
            email=row.email,
            requires_api_password=row.requires_api_password,
            api_password_hash=row.api_password_hash,
        )


_AGENTS = table("agent")
# The agent as the token read finds it (persistence.auth.tokens): columns of the table, not the ORM entity.
AGENT_COLUMNS = (
    _AGENTS.c.id,
    _AGENTS.c.username,
    _AGENTS.c.vendor_id,
    _AGENTS.c.active,
    _AGENTS.c.roles,
    _AGENTS.c.email,
    _AGENTS.c.requires_api_password,
    _AGENTS.c.api_password_hash,
)
