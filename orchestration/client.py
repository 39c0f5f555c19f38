"""Connecting to Temporal, for the API, the worker and the CLI alike: the one place that applies the TLS and
API-key settings, the tracing interceptor and the payload encryption (orchestration.codec)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from temporalio.client import Client, Interceptor
from temporalio.runtime import Runtime
from temporalio.service import TLSConfig

from models.crypto import load_key
from models.settings import Settings
from observability.tracing import temporal_interceptor, tracer_provider
from orchestration.codec import data_converter

log = logging.getLogger("lineup.temporal")


async def connect(
    settings: Settings, *, runtime: Runtime | None = None, tracing: TracerProvider | None = None
) -> Client:
    """`tracing` overrides the provider the settings give (tests hand in one with an in-memory exporter)."""
    provider = tracing or tracer_provider(
        settings.observability.otlp_endpoint, settings.observability.otlp_service_name
    )
    interceptors: list[Interceptor] = [temporal_interceptor(provider)] if provider is not None else []
    api_key = settings.temporal.api_key.get_secret_value() or None
    return await Client.connect(
        settings.temporal.address,
        namespace=settings.temporal.namespace,
        # None with an API key: the SDK turns TLS on with the system's trust store, as Temporal Cloud needs.
        tls=tls_config(settings),
        api_key=api_key,
        interceptors=interceptors,
        runtime=runtime,
        data_converter=data_converter(load_key(settings)),
    )


def tls_config(settings: Settings) -> TLSConfig | None:
    """The TLS settings as the SDK takes them, the PEM files read now; None when none is set."""
    if not settings.temporal.tls:
        return None
    return TLSConfig(
        server_root_ca_cert=_read(settings.temporal.tls_ca),
        client_cert=_read(settings.temporal.tls_cert),
        client_private_key=_read(settings.temporal.tls_key),
        domain=settings.temporal.tls_server_name or None,
    )


def _read(path: str) -> bytes | None:
    return Path(path).read_bytes() if path else None


async def connect_until_up(
    settings: Settings, *, runtime: Runtime | None = None, tracing: TracerProvider | None = None
) -> Client:
    """Retries with backoff: under `make run` the API and worker may start before Temporal answers."""
    tls_config(settings)  # a missing certificate file is a mistake to report, not an outage to wait out
    delay = 0.2
    while True:
        try:
            return await connect(settings, runtime=runtime, tracing=tracing)
        except Exception as exc:  # noqa: BLE001 — any failure means "not yet"; readyz reports it meanwhile
            log.warning("temporal not reachable yet", extra={"fields": {"error": str(exc)}})
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
