"""Every knob Lineup has, read from `LINEUP_*` environment variables (and `.env`)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

MiB = 1024 * 1024


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LINEUP_", env_file=".env", extra="ignore")

    profile: Literal["dev", "production"] = "dev"
    data_dir: Path = Path(".data")
    database_url: str = ""  # empty: SQLite file in data_dir
    base_path: str = ""

    api_host: str = "127.0.0.1"
    api_port: int = 8000

    temporal_address: str = "127.0.0.1:7233"
    temporal_namespace: str = "default"
    temporal_task_queue: str = "lineup"
    temporal_ui_port: int = 8233

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

    token_ttl_seconds: int = 900
    login_max_failures: int = 10
    login_lockout_seconds: int = 900
    max_body_bytes: int = 1 * MiB
    max_auth_body_bytes: int = 12 * MiB
    http_status: Literal["legacy", "rest"] = "legacy"
    extra_sources: str = ""  # comma-separated
    max_lines: int = 10
    sync_wait_seconds: float = 5.0
    carrier_max_attempts: int = 8
    port_poll_seconds: float = 300.0
    port_max_days: float = 14.0

    encryption_key: SecretStr | None = None
    log_level: str = "INFO"

    @model_validator(mode="after")
    def _production_needs_real_secrets(self) -> Settings:
        # A generated key lives next to the data it protects; in production that would put the key and
        # the ciphertext on one disk, so production must be given one.
        if self.profile == "production" and self.encryption_key is None:
            raise ValueError("LINEUP_ENCRYPTION_KEY is required when LINEUP_PROFILE=production")
        return self

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite+aiosqlite:///{self.data_dir / 'lineup.db'}"

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
