"""Every knob Lineup has, in frozen groups (`settings.auth.token_ttl_seconds`), each field declared once with its
default, its `LINEUP_*` variable and its meaning (`setting(...)`, or the docstring under it where one line would not
hold it), read from that flat variable (or `.env`): the variable names are a contract operators and outside checks
rely on, the grouping is the code's. docs/operations.md's settings table is generated from these declarations."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources import EnvSettingsSource

from models.types import parse_aliases

T = TypeVar("T")
MiB = 1024 * 1024
PREFIX = "LINEUP_"


@dataclass(frozen=True)
class Declared:
    """A setting as the docs show it."""

    alias_name: str  # the variable's name without LINEUP_, lower case
    default: object
    description: str


def setting(
    default: T,
    variable: str,
    description: str | None = None,
    *,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
) -> T:
    """A field read from `LINEUP_<variable>`, typed as its default so the group's annotation stays its own. Its
    meaning is `description`, or the docstring under the field where one line would not hold both (Group reads
    attribute docstrings)."""
    found: T = Field(default, validation_alias=variable.lower(), description=description, gt=gt, ge=ge, le=le)
    return found


class Group(BaseModel):
    """A frozen group of settings; it takes its fields by their variable names or their own."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid", use_attribute_docstrings=True)

    @classmethod
    def declared(cls) -> dict[str, Declared]:
        """Field name → its variable, default and description."""
        found = {}
        for name, info in cls.model_fields.items():
            alias = info.validation_alias
            assert isinstance(alias, str) and info.description, f"{cls.__name__}.{name} needs setting() and a meaning"
            found[name] = Declared(alias, info.default, info.description)
        return found


class DatabaseSettings(Group):
    url: str = setting("", "DATABASE_URL")
    """SQLAlchemy URL (`postgresql+asyncpg://…`); empty: `lineup.db` in the data dir"""
    connect_timeout_seconds: float = setting(5.0, "DB_CONNECT_TIMEOUT_SECONDS", gt=0)
    """PostgreSQL: a host that never answers fails the request after this"""
    pool_size: int = setting(10, "DB_POOL_SIZE", ge=1)
    """PostgreSQL: connections each process keeps open; a transaction beyond them waits for one to be free"""
    ping_after_idle_seconds: float = setting(10.0, "DB_PING_AFTER_IDLE_SECONDS", ge=0)
    """PostgreSQL: a pooled connection idle this long is checked before use (one that died is replaced)"""


class ApiSettings(Group):
    host: str = setting("127.0.0.1", "API_HOST", "Address the API listens on")
    port: int = setting(8000, "API_PORT", "Port the API listens on")
    processes: int = setting(1, "API_PROCESSES")
    """API processes sharing the socket under `lineup run` (uvicorn --workers)"""
    worker_healthcheck_seconds: int = setting(30, "API_WORKER_HEALTHCHECK_SECONDS", ge=1)
    """With several API processes: one that leaves uvicorn's health check unanswered this long is killed and
    restarted (uvicorn's default, 5 s, kills processes a busy machine is still starting)"""
    base_path: str = setting("", "BASE_PATH", "Prefix every path is served under, e.g. `/RESTAPI`")
    http_status: Literal["legacy", "rest"] = setting("legacy", "HTTP_STATUS")
    """`legacy`: HTTP 200 for every envelope; `rest`: meaningful statuses, same bodies"""
    extra_sources: str = setting("", "EXTRA_SOURCES", "More `source` values every operation accepts, comma-separated")
    max_body_bytes: int = setting(1 * MiB, "MAX_BODY_BYTES", "Largest request body")
    # decisions.md: "12 MiB for /auth, which carries images"
    max_auth_body_bytes: int = setting(12 * MiB, "MAX_AUTH_BODY_BYTES")
    """Largest body of `agent_change_password` (three images), read past MAX_BODY_BYTES only once its token passed"""
    max_json_members: int = setting(1000, "MAX_JSON_MEMBERS", ge=1)
    """Members one JSON object of a body may have (refused as the body is scanned, before it is parsed)"""
    header_timeout_seconds: float = setting(10.0, "HEADER_TIMEOUT_SECONDS", gt=0)
    """A request head unfinished by then: connection closed"""
    body_timeout_seconds: float = setting(30.0, "BODY_TIMEOUT_SECONDS", gt=0)
    """A body unfinished by then: RESTAPI110 (408), connection closed"""
    keep_alive_seconds: float = setting(5.0, "KEEP_ALIVE_SECONDS", gt=0)
    """An idle kept-alive connection is closed after this"""
    public_docs: bool | None = setting(None, "PUBLIC_DOCS")
    """`/docs`, `/redoc` and `/openapi.json` served to anyone; empty: on in dev, off in production"""
    trusted_proxies: str = setting(
        "",
        "TRUSTED_PROXIES",
        "Reverse proxies (addresses or networks, comma-separated) whose X-Forwarded-For/-Proto the API believes; "
        "empty: no proxy headers",
    )

    @model_validator(mode="after")
    def _proxies_parse(self) -> ApiSettings:
        _ = self.trusted_proxy_list  # a mistyped address fails at start, not by trusting nobody (or everybody)
        return self

    @cached_property
    def trusted_proxy_list(self) -> list[str]:
        """Each trusted proxy, checked as an address or a network (api.edge.TrustedProxies believes their headers)."""
        found = [entry.strip() for entry in self.trusted_proxies.split(",") if entry.strip()]
        for entry in found:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"LINEUP_TRUSTED_PROXIES: {entry!r} is not an address or a network") from None
        return found

    @cached_property
    def extra_source_list(self) -> frozenset[str]:
        return frozenset(s.strip().upper() for s in self.extra_sources.split(",") if s.strip())


class TemporalSettings(Group):
    address: str = setting("127.0.0.1:7233", "TEMPORAL_ADDRESS", "Temporal frontend, host:port")
    namespace: str = setting("default", "TEMPORAL_NAMESPACE", "Temporal namespace")
    task_queue: str = setting("lineup", "TEMPORAL_TASK_QUEUE", "Task queue of Lineup's workflows and activities")
    ui_port: int = setting(8233, "TEMPORAL_UI_PORT", "Port of the dev server's web UI under `lineup run`")
    ui_url: str = setting("", "TEMPORAL_UI_URL", "Where the console links workflows; empty: the dev server's UI")
    tls_ca: str = setting("", "TEMPORAL_TLS_CA", "PEM file of the CA that signed the server's certificate")
    tls_cert: str = setting("", "TEMPORAL_TLS_CERT", "PEM client certificate for mutual TLS (with the key)")
    tls_key: str = setting("", "TEMPORAL_TLS_KEY", "PEM private key of the client certificate")
    tls_server_name: str = setting("", "TEMPORAL_TLS_SERVER_NAME", "Name the server's certificate is checked against")
    api_key: SecretStr = setting(SecretStr(""), "TEMPORAL_API_KEY")
    """Temporal Cloud API key, sent as a bearer token (turns TLS on)"""
    rpc_seconds: float = setting(5.0, "TEMPORAL_RPC_SECONDS", gt=0)
    """How long the API waits for a workflow start, signal or query"""
    workflow_task_timeout_seconds: float = setting(5.0, "TEMPORAL_WORKFLOW_TASK_TIMEOUT_SECONDS", gt=0)
    """A workflow task a dead worker held goes elsewhere after this"""
    codec_token: SecretStr = setting(SecretStr(""), "CODEC_TOKEN")
    """Bearer token `/codec/encode` and `/codec/decode` require; empty: no codec endpoint"""
    codec_origins: str = setting("http://localhost:8233,http://127.0.0.1:8233", "CODEC_ORIGINS")
    """Temporal UI origins the codec endpoint lets call it"""

    @property
    def codec_origin_set(self) -> frozenset[str]:
        return frozenset(origin.strip().rstrip("/") for origin in self.codec_origins.split(",") if origin.strip())

    @property
    def tls(self) -> bool:
        return any((self.tls_ca, self.tls_cert, self.tls_server_name))

    @property
    def ui(self) -> str:
        return (self.ui_url or f"http://127.0.0.1:{self.ui_port}").rstrip("/")


class WorkerSettings(Group):
    processes: int = setting(1, "WORKER_PROCESSES", "Worker processes `lineup run` starts")
    metrics_port: int = setting(9464, "WORKER_METRICS_PORT", "The worker's Temporal SDK metrics on loopback; 0: off")
    stale_seconds: float = setting(30.0, "WORKER_STALE_SECONDS", gt=0)
    """/readyz wants a worker heartbeat this recent; each worker beats every third"""
    # Bench T5, a worker with 10,000 idle pending ports: the SDK's 1,000 held it at 309 MB, 500 at 237, 400 at 222.
    # Lines in flight are far fewer, and an idle port evicted from the cache replays a short history.
    cached_workflows: int = setting(500, "WORKER_CACHED_WORKFLOWS", ge=1)
    """Workflows a worker keeps in memory between tasks (the sticky cache); an evicted one replays its history"""
    history_events: int = setting(
        4000,
        "WORKFLOW_HISTORY_EVENTS",
        "The webhook dispatcher and a tax calculation's workflow continue as new past this many history events "
        "(or when Temporal suggests it)",
        ge=50,
    )


class SystemsSettings(Group):
    """The outside systems: the carrier's wholesale API, NLAD, the payment gateway (the local sandbox by default)."""

    carrier_base_url: str = setting("", "CARRIER_BASE_URL", "Carrier API base URL; empty: the local sandbox")
    nlad_base_url: str = setting("", "NLAD_BASE_URL", "NLAD base URL; empty: the local sandbox")
    payments_base_url: str = setting("", "PAYMENTS_BASE_URL", "Payment gateway base URL; empty: the local sandbox")
    carrier_aliases: dict[str, str] = setting({}, "CARRIER_ALIASES")
    """Vendor carrier codes channels send, `CODE:ABBR,…` (e.g. `BLUECONNECTSATT:ATT`)"""
    sandbox_host: str = setting("127.0.0.1", "SANDBOX_HOST", "Where the local sandbox listens")
    sandbox_port: int = setting(8100, "SANDBOX_PORT", "The sandbox's HTTP port")
    sandbox_smtp_port: int = setting(1025, "SANDBOX_SMTP_PORT", "The sandbox's SMTP sink port")
    lookup_budget_seconds: float = setting(10.0, "LOOKUP_BUDGET_SECONDS", gt=0)
    """A lookup a channel waits on (line inquiry, NLAD, device…), retries included"""
    tax_breaker_failures: int = setting(3, "TAX_BREAKER_FAILURES", ge=1)
    """Tax quotes in a row the carrier left unanswered before quotes come from held rates at once (per API process)"""
    tax_breaker_cooldown_seconds: float = setting(30.0, "TAX_BREAKER_COOLDOWN_SECONDS", gt=0)
    """How long tax quotes come from held rates before one call tries the carrier again"""

    @field_validator("carrier_aliases", mode="before")
    @classmethod
    def _aliases_parse(cls, value: object) -> object:
        return parse_aliases(value) if isinstance(value, str) else value  # a bad list fails at start

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


class MailSettings(Group):
    smtp_host: str = setting("127.0.0.1", "SMTP_HOST", "SMTP relay host")
    smtp_port: int = setting(1025, "SMTP_PORT", "SMTP relay port")
    smtp_tls: Literal["none", "starttls", "tls"] = setting("none", "SMTP_TLS", "`none`, `starttls` or `tls`")
    smtp_username: str = setting("", "SMTP_USERNAME", "SMTP login; empty: none")
    smtp_password: SecretStr = setting(SecretStr(""), "SMTP_PASSWORD", "SMTP password")
    sender: str = setting("no-reply@lineup.local", "MAIL_FROM", "Envelope sender of every e-mail")
    wait_seconds: float = setting(3.0, "MAIL_WAIT_SECONDS")
    """How long `send` waits for the relay before answering queued"""
    max_age_hours: float = setting(48.0, "MAIL_MAX_AGE_HOURS", gt=0)
    """Mail undelivered this long after it was queued is REJECTED (support lists it)"""


class AuthSettings(Group):
    token_ttl_seconds: int = setting(900, "TOKEN_TTL_SECONDS", "Lifetime of a single-use token")
    token_retention_hours: float = setting(24.0, "TOKEN_RETENTION_HOURS")
    """Used and expired tokens are purged after this"""
    max_failures: int = setting(10, "LOGIN_MAX_FAILURES", "Failed logins that lock a login")
    lockout_seconds: int = setting(900, "LOGIN_LOCKOUT_SECONDS", "How long a locked login stays refused")
    wait_seconds: float = setting(30.0, "LOGIN_WAIT_SECONDS", ge=0)
    """A login beyond the verifications in flight waits this long for a slot"""
    stale_seconds: int = setting(60, "LOGIN_STALE_SECONDS")
    """A verification unsettled this long is taken for a dead one"""
    # a channel's backend logs its users in from one address: room for its bursts, not for a flood
    login_address_per_minute: float = setting(600.0, "LOGIN_ADDRESS_PER_MINUTE", gt=0)
    """/authenticate attempts one client address may begin a minute (6 seconds' worth at once); beyond: 429"""
    login_total_per_second: float = setting(40.0, "LOGIN_TOTAL_PER_SECOND", gt=0)
    """Attempts all addresses together may begin a second, per API process"""
    login_verify_concurrency: int = setting(2, "LOGIN_VERIFY_CONCURRENCY", ge=1)
    """Login verifications (argon2) running at once, per API process"""
    login_verify_queue: int = setting(64, "LOGIN_VERIFY_QUEUE", ge=0)
    """Logins that may wait for a verification slot; beyond: refused at once (429)"""
    console_sign_in_per_minute: float = setting(10.0, "CONSOLE_SIGN_IN_PER_MINUTE", gt=0)
    """Console sign-ins one client address may try a minute"""
    otp_ttl_hours: float = setting(24.0, "LOGIN_OTP_TTL_HOURS", "A login-log OTP works this long after /authenticate")
    otp_max_failures: int = setting(5, "LOGIN_OTP_MAX_FAILURES", "Wrong OTPs one API user may send per window")
    otp_window_seconds: int = setting(900, "LOGIN_OTP_WINDOW_SECONDS", "The window of wrong OTPs")
    password_changes_per_day: int = setting(3, "PASSWORD_CHANGES_PER_DAY", ge=1)
    """`agent_change_password` calls one agent may make in 24 hours"""
    proof_retention_days: float = setting(365.0, "PROOF_RETENTION_DAYS", gt=0)
    """A password change's proof images are purged this long after it (sweep)"""
    console_idle_minutes: float = setting(30.0, "CONSOLE_IDLE_MINUTES", gt=0)
    """A support console session unused this long is over"""
    console_max_hours: float = setting(12.0, "CONSOLE_MAX_HOURS", gt=0)
    """A support console session begun this long ago is over, however busy"""


class EnrollmentSettings(Group):
    max_lines: int = setting(10, "MAX_LINES", "Lines one create request may carry", ge=1, le=100)
    sync_wait_seconds: float = setting(5.0, "SYNC_WAIT_SECONDS")
    """How long a create or activate waits for the carrier's MDN before answering"""
    carrier_max_attempts: int = setting(8, "CARRIER_MAX_ATTEMPTS", "Attempts of a line's carrier step before STUCK")
    stuck_retry_minutes: float = setting(15.0, "STUCK_RETRY_MINUTES", "A stuck line tries its step again this often…")
    stuck_retry_hours: float = setting(24.0, "STUCK_RETRY_HOURS", "…for this long; then it waits for support")
    line_history_events: int = setting(2000, "LINE_HISTORY_EVENTS")
    """A stuck line continues as new, still stuck, past this many history events"""


class PortingSettings(Group):
    poll_seconds: float = setting(300.0, "PORT_POLL_SECONDS", "Interval between polls of a pending port (first day)")
    max_days: float = setting(14.0, "PORT_MAX_DAYS", "A port without a final answer by then is ABANDONED")
    push_secret: SecretStr = setting(SecretStr(""), "PORT_PUSH_SECRET")
    """Shared secret the carrier signs its port-status pushes with (HMAC-SHA256); empty: pushes refused"""
    push_fallback_seconds: float = setting(3600.0, "PORT_PUSH_FALLBACK_SECONDS")
    """With pushes on (a push secret set): interval between polls of a pending port (first day), the fallback"""
    push_tolerance_seconds: float = setting(300.0, "PORT_PUSH_TOLERANCE_SECONDS", gt=0)
    """A push whose signed timestamp is further than this from now (either way) is refused"""
    push_polls_per_hour: int = setting(6, "PORT_PUSH_POLLS_PER_HOUR", ge=1)
    """Polls one port's pushes may trigger in an hour; a push beyond is taken, and the next poll sees it"""
    out_failure_limit: int = setting(5, "PORT_OUT_FAILURE_LIMIT", ge=1)
    """Wrong account number or PIN checks of a number Lineup holds, within the window, that lock its port-outs"""
    out_failure_window_hours: float = setting(24.0, "PORT_OUT_FAILURE_WINDOW_HOURS", gt=0)
    """The window the wrong checks of a held number are counted in (from the first of them)"""
    out_lock_hours: float = setting(24.0, "PORT_OUT_LOCK_HOURS", gt=0)
    """How long a held number's ports are refused once locked, even with the right account number and PIN"""
    hold_hours: float = setting(24.0, "PORT_HOLD_HOURS", gt=0)
    """How long a port waiting for corrections holds its number against another vendor's port; then it gives way"""


class PaymentSettings(Group):
    tax_idle_days: float = setting(30.0, "TAX_IDLE_DAYS", "A tax calculation's workflow not updated this long ends")
    guard_seconds: float = setting(60.0, "PAYMENT_GUARD_SECONDS")
    """How long a charge's answer may go unrecorded before the guard records it"""


class SweepSettings(Group):
    interval_seconds: float = setting(60.0, "SWEEP_SECONDS", "How often the sweep looks for work left behind; 0: off")
    grace_seconds: float = setting(120.0, "SWEEP_GRACE_SECONDS", "A row younger than this may still be starting")


class WebhookSettings(Group):
    allow_private: bool = setting(False, "WEBHOOK_ALLOW_PRIVATE")
    """Production: let endpoints resolve to addresses that are not public (private, loopback, link-local, shared…)"""
    timeout_seconds: float = setting(10.0, "WEBHOOK_TIMEOUT_SECONDS", gt=0)
    """How long one delivery's POST may take, whole (connect, send, answer)"""
    give_up_hours: float = setting(72.0, "WEBHOOK_GIVE_UP_HOURS", gt=0)
    """A delivery is retried this long; an endpoint failing this long is disabled"""
    max_backoff_seconds: float = setting(3600.0, "WEBHOOK_MAX_BACKOFF_SECONDS", "Longest wait between attempts", gt=0)
    concurrency: int = setting(16, "WEBHOOK_CONCURRENCY", ge=1, le=500)
    """Queued deliveries the dispatcher takes in one look and makes the first attempts of together (one activity)"""


class ObservabilitySettings(Group):
    log_level: str = setting("INFO", "LOG_LEVEL", "Log level of the JSON log lines")
    otlp_endpoint: str = setting("", "OTLP_ENDPOINT", "OTLP/HTTP collector base URL; empty: no tracing")
    otlp_service_name: str = setting("lineup", "OTLP_SERVICE_NAME", "Service name of the traces")
    metrics_token: SecretStr = setting(SecretStr(""), "METRICS_TOKEN")
    """Bearer token `/metrics` requires on the API's port; empty: none in dev, not served there in production"""
    metrics_port: int = setting(0, "METRICS_PORT", ge=0)
    """`/metrics` alone on 127.0.0.1:this port, without a token (each API process); 0: off"""
    metrics_cache_seconds: float = setting(5.0, "METRICS_CACHE_SECONDS", ge=0)
    """The database half of a scrape is reused this long (scrapes share one query)"""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, env_file=".env", extra="ignore", frozen=True)

    profile: Literal["dev", "production"] = "dev"
    data_dir: Path = Path(".data")
    encryption_key: SecretStr | None = None
    database: DatabaseSettings = DatabaseSettings()
    api: ApiSettings = ApiSettings()
    temporal: TemporalSettings = TemporalSettings()
    worker: WorkerSettings = WorkerSettings()
    systems: SystemsSettings = SystemsSettings()
    mail: MailSettings = MailSettings()
    auth: AuthSettings = AuthSettings()
    enrollment: EnrollmentSettings = EnrollmentSettings()
    porting: PortingSettings = PortingSettings()
    payment: PaymentSettings = PaymentSettings()
    sweep: SweepSettings = SweepSettings()
    webhooks: WebhookSettings = WebhookSettings()
    observability: ObservabilitySettings = ObservabilitySettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, FlatVariables(settings_cls, env_settings), FlatVariables(settings_cls, dotenv_settings)

    @model_validator(mode="before")
    @classmethod
    def _grouped(cls, data: object) -> object:
        """Flat names (`token_ttl_seconds`, as the variables and the tests' overrides say them) go to their
        group, over what the group's own mapping says."""
        if not isinstance(data, Mapping):
            return data
        grouped: dict[str, object] = {key: value for key, value in data.items() if key not in FLAT}
        for key, value in data.items():
            if key in FLAT:
                group, name = FLAT[key]
                current = grouped.get(group)
                if isinstance(current, BaseModel):  # a group as it stands (Settings.replaced)
                    current = current.model_dump()
                values = dict(current) if isinstance(current, Mapping) else {}
                values.pop(name, None)  # given by both names, the field is given twice
                values[key] = value
                grouped[group] = values
        return grouped

    def replaced(self, **flat: object) -> Settings:
        """These settings with some values changed, by their flat names, validated as at start."""
        return Settings.model_validate({**dict(self), **flat})

    @model_validator(mode="after")
    def _production_needs_real_secrets(self) -> Settings:
        # A generated key lives next to the data it protects; in production that would put the key and
        # the ciphertext on one disk, so production must be given one.
        if self.profile == "production" and self.encryption_key is None:
            raise ValueError("LINEUP_ENCRYPTION_KEY is required when LINEUP_PROFILE=production")
        if bool(self.temporal.tls_cert) != bool(self.temporal.tls_key):
            raise ValueError("LINEUP_TEMPORAL_TLS_CERT and LINEUP_TEMPORAL_TLS_KEY are set together or not at all")
        return self

    @property
    def docs_public(self) -> bool:
        """LINEUP_PUBLIC_DOCS, or by the profile: the API's description is for developers, not for the internet."""
        return self.api.public_docs if self.api.public_docs is not None else self.profile != "production"

    @property
    def db_url(self) -> str:
        return self.database.url or f"sqlite:///{self.data_dir / 'lineup.db'}"


# The groups by their names in Settings, in its order (the docs' table follows it).
GROUPS: dict[str, type[Group]] = {
    name: kind
    for name, info in Settings.model_fields.items()
    if isinstance(kind := info.annotation, type) and issubclass(kind, Group)
}
# Flat variable name (without LINEUP_, lower case) → (group, field).
FLAT: dict[str, tuple[str, str]] = {
    info.alias_name: (group, name) for group, model in GROUPS.items() for name, info in model.declared().items()
}


class FlatVariables(PydanticBaseSettingsSource):
    """The `LINEUP_*` variables of the environment (or of `.env`) under their flat lower-case names."""

    def __init__(self, settings_cls: type[BaseSettings], source: PydanticBaseSettingsSource) -> None:
        super().__init__(settings_cls)
        self._source = source

    def get_field_value(self, field: object, field_name: str) -> tuple[object, str, bool]:
        return None, field_name, False  # unused: __call__ answers for every field at once

    def __call__(self) -> dict[str, object]:
        if not isinstance(self._source, EnvSettingsSource):  # .env's source is one too
            return {}
        prefix = PREFIX.lower()
        return {
            name[len(prefix) :]: value
            for name, value in self._source.env_vars.items()
            if name.lower().startswith(prefix) and value is not None
        }


@cache
def get_settings() -> Settings:
    return Settings()
