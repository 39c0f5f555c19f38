"""Every knob Lineup has, read from `LINEUP_*` environment variables (and `.env`)."""

from __future__ import annotations

from functools import cache, cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from models.carriers import parse_aliases

MiB = 1024 * 1024


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LINEUP_", env_file=".env", extra="ignore")

    profile: Literal["dev", "production"] = "dev"
    data_dir: Path = Path(".data")
    database_url: str = ""  # empty: SQLite file in data_dir
    # PostgreSQL: a host that takes the TCP connection but never answers fails the request after this, not
    # after asyncpg's own 60 s (SQLite has no connecting to bound).
    db_connect_timeout_seconds: float = Field(default=5.0, gt=0)
    base_path: str = ""

    api_host: str = "127.0.0.1"
    api_port: int = 8000
    api_processes: int = 1  # uvicorn --workers under `lineup run`: processes sharing the API socket
    worker_processes: int = 1  # `python -m worker` processes `lineup run` starts

    temporal_address: str = "127.0.0.1:7233"
    temporal_namespace: str = "default"
    temporal_task_queue: str = "lineup"
    temporal_ui_port: int = 8233
    temporal_ui_url: str = ""  # where the console links workflows; empty: the dev server's UI on temporal_ui_port
    # A secured cluster or Temporal Cloud; all empty for the local dev server. The three TLS ones are PEM files,
    # read at each connect so a renewed certificate needs a restart, not a rebuild.
    temporal_tls_ca: str = ""  # CA that signed the server's certificate; empty: the system's trust store
    temporal_tls_cert: str = ""  # client certificate for mutual TLS (with temporal_tls_key)
    temporal_tls_key: str = ""
    temporal_tls_server_name: str = ""  # name the server's certificate is checked against (and SNI)
    temporal_api_key: SecretStr = SecretStr("")  # sent as `authorization: Bearer …`; turns TLS on by itself

    sandbox_host: str = "127.0.0.1"
    sandbox_port: int = 8100
    sandbox_smtp_port: int = 1025
    carrier_base_url: str = ""  # empty: the local sandbox
    nlad_base_url: str = ""
    payments_base_url: str = ""

    smtp_host: str = "127.0.0.1"
    smtp_port: int = 1025
    smtp_tls: Literal["none", "starttls", "tls"] = "none"
    smtp_username: str = ""
    smtp_password: SecretStr = SecretStr("")
    mail_from: str = "no-reply@lineup.local"
    mail_wait_seconds: float = 3.0  # how long `send` waits for the relay before answering "queued"
    sweep_seconds: float = 60.0  # how often the sweep looks for work a write-then-start pair left behind
    sweep_grace_seconds: float = 120.0  # a row younger than this may still be starting its own workflow
    token_retention_hours: float = 24.0  # used and expired tokens are purged after this
    tax_idle_days: float = 30.0  # a tax calculation's workflow not updated for this long ends
    payment_guard_seconds: float = 60.0  # how long a charge's answer may go unrecorded before the guard records it

    token_ttl_seconds: int = 900
    login_max_failures: int = 10
    login_lockout_seconds: int = 900
    login_otp_ttl_hours: float = 24.0  # a login-log OTP stops working this long after /authenticate opened it
    login_otp_max_failures: int = 5  # wrong OTPs one API user may send per window before its OTP checks refuse
    login_otp_window_seconds: int = 900
    console_idle_minutes: float = Field(default=30.0, gt=0)  # a support console session unused this long is over
    max_body_bytes: int = 1 * MiB
    max_auth_body_bytes: int = 12 * MiB
    # Slow clients (uvicorn has no read timeouts of its own; api.server and api.middleware add them):
    header_timeout_seconds: float = Field(default=10.0, gt=0)  # a request head unfinished by then: connection closed
    body_timeout_seconds: float = Field(default=30.0, gt=0)  # a body unfinished by then: RESTAPI110 (408), closed
    keep_alive_seconds: float = Field(default=5.0, gt=0)  # an idle connection between requests is closed after this
    http_status: Literal["legacy", "rest"] = "legacy"
    extra_sources: str = ""  # comma-separated
    carrier_aliases: str = ""  # CODE:ABBR,… — vendor carrier codes channels send, e.g. BLUECONNECTSATT:ATT
    max_lines: int = Field(default=10, ge=1, le=100)  # 100: the request model's own bound
    sync_wait_seconds: float = 5.0
    carrier_max_attempts: int = 8
    stuck_retry_minutes: float = 15.0
    stuck_retry_hours: float = 24.0
    port_poll_seconds: float = 300.0
    port_max_days: float = 14.0

    encryption_key: SecretStr | None = None
    log_level: str = "INFO"
    worker_metrics_port: int = 9464  # the Temporal SDK's Prometheus endpoint in the worker; 0 turns it off
    otlp_endpoint: str = ""  # OTLP/HTTP collector base URL, e.g. http://127.0.0.1:4318; empty: no tracing
    otlp_service_name: str = "lineup"

    @model_validator(mode="after")
    def _production_needs_real_secrets(self) -> Settings:
        # A generated key lives next to the data it protects; in production that would put the key and
        # the ciphertext on one disk, so production must be given one.
        if self.profile == "production" and self.encryption_key is None:
            raise ValueError("LINEUP_ENCRYPTION_KEY is required when LINEUP_PROFILE=production")
        parse_aliases(self.carrier_aliases)  # a bad alias list fails at start, not on the first call using it
        if bool(self.temporal_tls_cert) != bool(self.temporal_tls_key):
            raise ValueError("LINEUP_TEMPORAL_TLS_CERT and LINEUP_TEMPORAL_TLS_KEY are set together or not at all")
        return self

    @property
    def temporal_tls(self) -> bool:
        return any((self.temporal_tls_ca, self.temporal_tls_cert, self.temporal_tls_server_name))

    @property
    def temporal_ui(self) -> str:
        return (self.temporal_ui_url or f"http://127.0.0.1:{self.temporal_ui_port}").rstrip("/")

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite+aiosqlite:///{self.data_dir / 'lineup.db'}"

    @cached_property
    def carrier_alias_map(self) -> dict[str, str]:
        return parse_aliases(self.carrier_aliases)

    @property
    def extra_source_list(self) -> frozenset[str]:
        return frozenset(s.strip().upper() for s in self.extra_sources.split(",") if s.strip())

    @property
    def sandbox_url(self) -> str:
        return f"http://{self.sandbox_host}:{self.sandbox_port}"

    @property
    def carrier_url(self) -> str:
        return self.carrier_base_url or f"{self.sandbox_url}/carrier"

    @property
    def nlad_url(self) -> str:
        return self.nlad_base_url or f"{self.sandbox_url}/nlad"

    @property
    def payments_url(self) -> str:
        return self.payments_base_url or f"{self.sandbox_url}/payments"

    def body_limit(self, path: str) -> int:
        """Bytes a request body may carry: `/auth` carries three proof images."""
        group = path.removeprefix(self.base_path).strip("/").split("/", 1)[0]
        return self.max_auth_body_bytes if group == "auth" else self.max_body_bytes


@cache
def get_settings() -> Settings:
    return Settings()
