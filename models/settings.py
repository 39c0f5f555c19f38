"""Every knob Lineup has, in frozen groups (`settings.auth.token_ttl_seconds`), each read from its flat
`LINEUP_*` environment variable (and `.env`): the variable names are a contract operators and outside checks
rely on, the grouping is the code's. docs/operations.md's settings table is generated from these
declarations (`python -m models.settings_table`) and a test keeps it in step."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, SecretStr, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources import DotEnvSettingsSource, EnvSettingsSource

from models.setting_groups import (
    FLAT,
    PREFIX,
    ApiSettings,
    AuthSettings,
    DatabaseSettings,
    EnrollmentSettings,
    MailSettings,
    ObservabilitySettings,
    PaymentSettings,
    PortingSettings,
    SweepSettings,
    SystemsSettings,
    TemporalSettings,
    WebhookSettings,
    WorkerSettings,
)


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


class FlatVariables(PydanticBaseSettingsSource):
    """The `LINEUP_*` variables of the environment (or of `.env`) under their flat lower-case names."""

    def __init__(self, settings_cls: type[BaseSettings], source: PydanticBaseSettingsSource) -> None:
        super().__init__(settings_cls)
        self._source = source

    def get_field_value(self, field: object, field_name: str) -> tuple[object, str, bool]:
        return None, field_name, False  # unused: __call__ answers for every field at once

    def __call__(self) -> dict[str, object]:
        if not isinstance(self._source, EnvSettingsSource | DotEnvSettingsSource):
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
