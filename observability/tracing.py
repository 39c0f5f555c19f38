"""OpenTelemetry traces, off unless LINEUP_OTLP_ENDPOINT is set: one tracer provider per process exporting
over OTLP/HTTP, handed explicitly to the FastAPI instrumentation and to Temporal's tracing interceptor (never
installed as the global provider, so a test can hand in its own without fighting a set-once global).
The interceptor carries the span context in workflow and activity headers: API request → workflow →
activity is one trace, across processes."""

from __future__ import annotations

from functools import cache

from fastapi import FastAPI
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from temporalio.contrib.opentelemetry import TracingInterceptor

TRACER_NAME = "lineup"
# Scrapes and probes would be most of the spans and say nothing about an enrollment.
UNTRACED_PATHS = "metrics,healthz,readyz,docs,redoc,openapi.json"


def tracer_provider(endpoint: str, service_name: str) -> TracerProvider | None:
    """The process's provider for LINEUP_OTLP_ENDPOINT and LINEUP_OTLP_SERVICE_NAME; None when tracing is off."""
    if not endpoint:
        return None
    return _provider(endpoint.rstrip("/"), service_name)


@cache
def _provider(endpoint: str, service_name: str) -> TracerProvider:
    # Cached: one exporter and batch thread per process however often the app or a client is built.
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
    # The base URL as OTEL_EXPORTER_OTLP_ENDPOINT takes it; traces go to its /v1/traces.
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")))
    return provider


def temporal_interceptor(provider: TracerProvider) -> TracingInterceptor:
    """For Client.connect: it applies to the client's calls and to every worker built on that client."""
    return TracingInterceptor(provider.get_tracer(TRACER_NAME))


def instrument_app(app: FastAPI, provider: TracerProvider) -> None:
    """A server span per HTTP request; a workflow started while handling it becomes that span's child."""
    # No spans per ASGI send/receive: a request is one span, with its workflow calls beneath it.
    FastAPIInstrumentor.instrument_app(
        app, tracer_provider=provider, excluded_urls=UNTRACED_PATHS, exclude_spans=["receive", "send"]
    )
