"""What operators watch: logs as JSON lines (callers pass structured `fields`; bodies, tokens and PII are never given
to them), Lineup's Prometheus series (this process's, or every process's with PROMETHEUS_MULTIPROC_DIR; the worker's
also on the SDK's metrics endpoint), and OpenTelemetry traces, off unless LINEUP_OTLP_ENDPOINT is set."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache

import prometheus_client
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from temporalio.common import MetricMeter
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig

CONTENT_TYPE = prometheus_client.CONTENT_TYPE_PLAIN_0_0_4
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
UNKNOWN_ACTION = "unknown"  # a refusal before the action resolved: the label stays bounded by the catalog

# `_created` series double every label set and, in multiprocess mode, are not exported anyway.
prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]

REQUESTS = Counter("lineup_requests", "Operation calls answered, by action and msg_code", ["action", "msg_code"])
REQUEST_SECONDS = Histogram(
    "lineup_request_seconds",
    "Time to answer an operation call, by action",
    ["action"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
TOKEN_FAILURES = Counter("lineup_token_failures", "Calls refused at the token check, by reason", ["reason"])
ENROLLMENTS_STARTED = Counter(
    "lineup_enrollments_started", "Enrollment requests accepted (a repeated request is not counted again)"
)
# A series the worker's SDK meter counts too keeps its name and help in constants: both places say the same.
OUTSIDE_UNAVAILABLE = "lineup_outside_unavailable"
OUTSIDE_UNAVAILABLE_HELP = "Calls to an outside system that found it unavailable (each retried attempt), by system"
OUTSIDE_OUTAGES = Counter(OUTSIDE_UNAVAILABLE, OUTSIDE_UNAVAILABLE_HELP, ["system"])
# What the alert rules (deploy/prometheus) watch beside the series above.
OUTAGE_ANSWERS = Counter(
    "lineup_outage_answers",
    "Operation calls answered with an outage error (an outside system, Temporal or the database down), by action",
    ["action"],
)
CARRIER_REFUSALS = "lineup_carrier_refusals"
CARRIER_REFUSALS_HELP = "Carrier calls refused with a business no (a line's event line.carrier_refused)"
REFUSALS = Counter(CARRIER_REFUSALS, CARRIER_REFUSALS_HELP)
PORT_COMPLETION = "lineup_port_completion_seconds"
PORT_COMPLETION_HELP = "Time from a port's submission to the carrier's COMPLETED"
# Ten minutes to the fourteen days after which a port is abandoned (LINEUP_PORT_MAX_DAYS' default).
PORT_BUCKETS = (600.0, 1800.0, 3600.0, 14_400.0, 43_200.0, 86_400.0, 172_800.0, 259_200.0, 604_800.0, 1_209_600.0)
PORT_SECONDS = Histogram(PORT_COMPLETION, PORT_COMPLETION_HELP, buckets=PORT_BUCKETS)
# Failures an attacker's guessing leaves behind (issue 35): the alert rules watch their rates.
LOGIN_FAILURES = Counter(
    "lineup_login_failures",
    "Sign-ins refused (wrong credentials, locked, throttled), by surface: api (/authenticate) or console",
    ["surface"],
)
PUSH_SIGNATURE_FAILURES = Counter(
    "lineup_push_signature_failures", "Carrier port-status pushes refused for their signature or its timestamp"
)
PORT_OUT_CHECKS_FAILED = "lineup_port_out_check_failures"
PORT_OUT_CHECKS_FAILED_HELP = "Ports of a number Lineup holds refused for a wrong account number or PIN"
PORT_OUT_CHECK_FAILURES = Counter(PORT_OUT_CHECKS_FAILED, PORT_OUT_CHECKS_FAILED_HELP)


@dataclass(frozen=True)
class Snapshot(Collector):
    """What the database holds at scrape time; `database_up` False when it could not be read (then only that)."""

    lines: Mapping[str, int] = field(default_factory=dict)  # every line status, zero included
    stuck_lines: int = 0
    mail_queued: int = 0
    ports_pending: Mapping[str, int] = field(default_factory=dict)  # by age band, every band listed
    webhook_endpoints_failing: Mapping[str, int] = field(default_factory=dict)  # by vendor code, its active ones
    webhook_oldest_undelivered_seconds: float = 0.0  # the oldest event waiting for its first delivery attempt
    workers_alive: Mapping[str, int] = field(default_factory=dict)  # by task queue, its own included
    database_up: bool = True

    def collect(self) -> Iterator[Metric]:
        """The snapshot as gauges, for `exposition`."""
        up = "1 when the scrape could read the database"
        yield GaugeMetricFamily("lineup_database_up", up, value=int(self.database_up))
        if not self.database_up:
            return
        ports = "Ports not yet final, by age since submitted"
        yield _labelled("lineup_ports_pending", ports, "age", self.ports_pending.items())
        failing = "Active webhook endpoints whose last delivery failed, by vendor (every vendor with an active one)"
        by_vendor = sorted(self.webhook_endpoints_failing.items())
        yield _labelled("lineup_webhook_endpoints_failing", failing, "vendor", by_vendor)
        waiting = "Age of the oldest event waiting for its first delivery attempt to an active endpoint (0: none)"
        oldest = self.webhook_oldest_undelivered_seconds
        yield GaugeMetricFamily("lineup_webhook_oldest_undelivered_seconds", waiting, value=oldest)
        alive = "Workers whose heartbeat is fresher than LINEUP_WORKER_STALE_SECONDS, by task queue"
        yield _labelled("lineup_workers_alive", alive, "task_queue", sorted(self.workers_alive.items()))
        yield _labelled("lineup_lines", "Lines by status", "status", sorted(self.lines.items()))
        yield GaugeMetricFamily("lineup_stuck_lines", "Lines waiting for a retry", value=self.stuck_lines)
        yield GaugeMetricFamily("lineup_mail_queued", "Outbox mail not delivered yet", value=self.mail_queued)


def _labelled(name: str, documentation: str, label: str, counts: Iterable[tuple[str, int]]) -> GaugeMetricFamily:
    """A gauge with one labelled value per count."""
    family = GaugeMetricFamily(name, documentation, labels=[label])
    for value, count in counts:
        family.add_metric([value], count)
    return family


def configure_logging(level: str) -> None:
    handler = _LineupHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    # Only our own handler is replaced: a host's handlers (pytest's capture, an APM agent) keep receiving records.
    root.handlers[:] = [h for h in root.handlers if not isinstance(h, _LineupHandler)] + [handler]
    root.setLevel(level.upper())
    for noisy in ("uvicorn.access", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}))
        if request_id := getattr(record, "request_id", None):
            line["request_id"] = request_id
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class _LineupHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Marks the handler this module installs, so configuring twice replaces it and leaves others alone."""


def request_answered(action: str | None, msg_code: str, seconds: float, *, outage: bool = False) -> None:
    action = action or UNKNOWN_ACTION
    REQUESTS.labels(action=action, msg_code=msg_code).inc()
    REQUEST_SECONDS.labels(action=action).observe(seconds)
    if outage:
        OUTAGE_ANSWERS.labels(action=action).inc()


def token_refused(reason: str) -> None:
    TOKEN_FAILURES.labels(reason=reason).inc()


def login_refused(surface: str) -> None:
    """A sign-in refused at `surface` (api: /authenticate, console: the console's sign-in); outages not counted."""
    LOGIN_FAILURES.labels(surface=surface).inc()


def push_signature_refused() -> None:
    """A carrier push refused for its signature (wrong, malformed, or signed outside the tolerance)."""
    PUSH_SIGNATURE_FAILURES.inc()


def port_out_check_failed(meter: MetricMeter | None = None) -> None:
    """A port of a number Lineup holds refused for a wrong account number or PIN: here and, given the activity's
    SDK meter, on the worker's metrics endpoint (as carrier_refused)."""
    PORT_OUT_CHECK_FAILURES.inc()
    if meter is not None:
        meter.create_counter(PORT_OUT_CHECKS_FAILED, PORT_OUT_CHECKS_FAILED_HELP).add(1)


def enrollment_started() -> None:
    ENROLLMENTS_STARTED.inc()


def outside_unavailable(system: str, meter: MetricMeter | None = None) -> None:
    """One attempt that found `system` down: in this process's registry and, given the activity's SDK meter, on
    the worker's metrics endpoint (LINEUP_WORKER_METRICS_PORT) beside the SDK's own series, labelled with task
    queue and activity type."""
    OUTSIDE_OUTAGES.labels(system=system).inc()
    if meter is not None:
        meter.create_counter(OUTSIDE_UNAVAILABLE, OUTSIDE_UNAVAILABLE_HELP).add(1, {"system": system})


def carrier_refused(meter: MetricMeter | None = None) -> None:
    """One refusal by the carrier: here and, given the activity's SDK meter, on the worker's metrics endpoint."""
    REFUSALS.inc()
    if meter is not None:
        meter.create_counter(CARRIER_REFUSALS, CARRIER_REFUSALS_HELP).add(1)


def port_completed(seconds: float, meter: MetricMeter | None = None) -> None:
    """A port completed `seconds` after it was submitted (same buckets here and on the worker's endpoint)."""
    PORT_SECONDS.observe(seconds)
    if meter is not None:
        meter.create_histogram_float(PORT_COMPLETION, PORT_COMPLETION_HELP).record(seconds)


def exposition(snapshot: Snapshot) -> bytes:
    """The Prometheus text: this process's series (or every process's, in multiprocess mode) and the snapshot."""
    registry: Collector = REGISTRY
    if os.environ.get(MULTIPROC_ENV):
        # A fresh registry per scrape, as prometheus_client's multiprocess mode requires.
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return generate_latest(registry) + generate_latest(snapshot)


def temporal_runtime(port: int) -> Runtime | None:
    """A Temporal runtime serving the SDK's own metrics (`temporal_…`) on 127.0.0.1:`port`; None when 0.
    Bound to loopback: Prometheus scrapes it from the same host or through the operator's proxy."""
    if port == 0:
        return None
    buckets = {PORT_COMPLETION: PORT_BUCKETS}  # the same as this process's histogram: the two add up in a query
    config = PrometheusConfig(bind_address=f"127.0.0.1:{port}", histogram_bucket_overrides=buckets)
    return Runtime(telemetry=TelemetryConfig(metrics=config))


def tracer_provider(endpoint: str, service_name: str) -> TracerProvider | None:
    """The process's provider for LINEUP_OTLP_ENDPOINT and LINEUP_OTLP_SERVICE_NAME; None when tracing is off."""
    return _provider(endpoint.rstrip("/"), service_name) if endpoint else None


def temporal_interceptor(provider: TracerProvider) -> TracingInterceptor:
    """For Client.connect: it applies to the client's calls and to every worker built on that client."""
    return TracingInterceptor(provider.get_tracer("lineup"))


@cache
def _provider(endpoint: str, service_name: str) -> TracerProvider:
    # Cached: one exporter and batch thread per process however often the app or a client is built.
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
    # The base URL as OTEL_EXPORTER_OTLP_ENDPOINT takes it; traces go to its /v1/traces.
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")))
    return provider
