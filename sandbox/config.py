"""Sandbox settings, read from LINEUP_SANDBOX_* environment variables."""

import os

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_db_path() -> str:
    """`$LINEUP_DATA_DIR/sandbox.db`: the sandbox keeps its state next to Lineup's own local data."""
    return os.path.join(os.environ.get("LINEUP_DATA_DIR", ".data"), "sandbox.db")


class SandboxConfig(BaseSettings):
    """Where the sandbox listens, how unreliable it is, and where it keeps its state."""

    model_config = SettingsConfigDict(env_prefix="LINEUP_SANDBOX_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8100, ge=1, le=65535)
    smtp_port: int = Field(default=1025, ge=1, le=65535)
    # Fraction of /carrier and /nlad calls answered 503 before doing anything.
    fault_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    # Delay added to every /carrier, /nlad and /payments call.
    latency_ms: int = Field(default=0, ge=0)
    # Time from (re)submission to COMPLETED for a default port-in; CONFIRMED at half of it.
    port_complete_seconds: float = Field(default=60.0, ge=0.0)
    # Where port-status changes are pushed (Lineup's /carrier/port-status), and the secret they are signed
    # with; empty: no pushes (sandbox/port_push.py).
    port_push_url: str = ""
    port_push_secret: str = ""
    # ":memory:" is accepted so tests need no files.
    db_path: str = Field(default_factory=default_db_path)
