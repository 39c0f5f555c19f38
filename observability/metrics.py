"""Lineup's Prometheus series. Counters and histograms live in this process (or, with
PROMETHEUS_MULTIPROC_DIR set, in files every API process of one host shares); the gauges about lines and
mail are counted in the database at scrape time, so any process answers them alike."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import prometheus_client
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from temporalio.common import MetricMeter
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

OUTSIDE_UNAVAILABLE = "lineup_outside_unavailable"
OUTSIDE_UNAVAILABLE_HELP = "Calls to an outside system that found it unavailable (each retried attempt), by system"
OUTSIDE_OUTAGES = Counter(OUTSIDE_UNAVAILABLE, OUTSIDE_UNAVAILABLE_HELP, ["system"])


def request_answered(action: str | None, msg_code: str, seconds: float) -> None:
    REQUESTS.labels(action=action or UNKNOWN_ACTION, msg_code=msg_code).inc()
    REQUEST_SECONDS.labels(action=action or UNKNOWN_ACTION).observe(seconds)


def token_refused(reason: str) -> None:
    TOKEN_FAILURES.labels(reason=reason).inc()


def enrollment_started() -> None:
    ENROLLMENTS_STARTED.inc()


def outside_unavailable(system: str, meter: MetricMeter | None = None) -> None:
    """One attempt that found `system` down: in this process's registry (the API's /metrics, or every process's
    with PROMETHEUS_MULTIPROC_DIR) and, given the activity's SDK meter, on the worker's metrics endpoint
    (LINEUP_WORKER_METRICS_PORT) beside the SDK's own series, labelled with task queue and activity type."""
    OUTSIDE_OUTAGES.labels(system=system).inc()
    if meter is not None:
        counter = meter.create_counter(OUTSIDE_UNAVAILABLE, OUTSIDE_UNAVAILABLE_HELP)
        counter.add(1, {"system": system})


@dataclass(frozen=True)
class Snapshot:
    """What the database holds at scrape time."""

    lines: Mapping[str, int] = field(default_factory=dict)  # every line status, zero included
    stuck_lines: int = 0
    mail_queued: int = 0


class _SnapshotCollector(Collector):
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        lines = GaugeMetricFamily("lineup_lines", "Lines by status", labels=["status"])
        for status, count in sorted(self.snapshot.lines.items()):
            lines.add_metric([status], count)
        yield lines
        yield GaugeMetricFamily("lineup_stuck_lines", "Lines waiting for a retry", value=self.snapshot.stuck_lines)
        yield GaugeMetricFamily("lineup_mail_queued", "Outbox mail not delivered yet", value=self.snapshot.mail_queued)


def exposition(snapshot: Snapshot) -> bytes:
    """The Prometheus text: this process's series (or every process's, in multiprocess mode) and the snapshot."""
    registry: Collector = REGISTRY
    if os.environ.get(MULTIPROC_ENV):
        # A fresh registry per scrape, as prometheus_client's multiprocess mode requires.
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return generate_latest(registry) + generate_latest(_SnapshotCollector(snapshot))


def temporal_runtime(port: int) -> Runtime | None:
    """A Temporal runtime serving the SDK's own metrics (`temporal_…`) on 127.0.0.1:`port`; None when 0.
    Bound to loopback: Prometheus scrapes it from the same host or through the operator's proxy."""
    if port == 0:
        return None
    return Runtime(telemetry=TelemetryConfig(metrics=PrometheusConfig(bind_address=f"127.0.0.1:{port}")))
