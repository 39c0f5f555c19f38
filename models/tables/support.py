"""Tables of the support domain: sessions of the support console (api/console), a browser's signed-in agent
found by the hash of its cookie, and the console sign-in's own throttle."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.clock import utcnow


class ConsoleSession(SQLModel, table=True):
    __tablename__ = "console_session"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True)  # sha256 hex of the cookie; the cookie is never stored
    agent_id: int = Field(foreign_key="agent.id", index=True)
    vendor_id: int = Field(foreign_key="vendor.id")
    ip_address: str | None = Field(default=None, max_length=45)
    started_at: datetime = Field(default_factory=utcnow)
    # Moved by every request; a session idle past LINEUP_CONSOLE_IDLE_MINUTES is over (and deleted when seen).
    last_seen_at: datetime = Field(default_factory=utcnow, index=True)


class ConsoleLogin(SQLModel, table=True):
    """The console sign-in's throttle of one support agent, apart from its API password's (Agent.failed_logins):
    failed sign-ins lock the console only, never the agent's API calls (persistence/auth/logins.py)."""

    __tablename__ = "console_login"

    agent_id: int = Field(primary_key=True, foreign_key="agent.id")
    failed_logins: int = 0
    locked_until: datetime | None = None
    pending_logins: int = 0
    pending_since: datetime | None = None
