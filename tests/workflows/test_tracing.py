"""Traces: one trace from the API request through the workflow to the activity, through the real worker on
the dev server; off by default; with LINEUP_OTLP_ENDPOINT set, spans reach that collector over OTLP/HTTP."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from api.temporal import connect
from models.observability import tracer_provider
from models.types import with_check_digit
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body
from tests.support.stack import Stack

DEVICE = body("check_device_compatibility", imei=with_check_digit("35209908123450"))


async def test_one_trace_spans_the_api_request_the_workflow_and_the_activity(
    data_dir, sqlite_url, temporal_env, sandbox_url
):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    address = temporal_env.client.service_client.config.target_host
    client = await connect(make_settings(data_dir, sqlite_url, temporal_address=address), tracing=provider)
    async with Stack.running(data_dir, sqlite_url, temporal_env, sandbox_url, temporal=client, tracing=provider) as s:
        answer = await s.call("/inventory", DEVICE)
    assert answer["msg_code"] == "RESTAPI000", answer

    # The worker's own webhook dispatcher (started as it starts, not by this request) traces apart.
    finished = exporter.get_finished_spans()
    dispatcher = {
        span.context.trace_id for span in finished if "Webhook" in span.name or "queued_deliveries" in span.name
    }
    spans = [span for span in finished if span.context.trace_id not in dispatcher]
    by_name = {span.name: span for span in spans}
    request = by_name["POST /inventory"]
    assert request.kind is SpanKind.SERVER and request.parent is None
    assert {span.context.trace_id for span in spans} == {request.context.trace_id}  # one trace, every span
    # The context crossed client, server and worker: the workflow's spans hang under the start the request
    # made (the interceptor parents them on the context the start carried), the activity's run under its start.
    parent_of = {
        span.name: next((p.name for p in spans if span.parent and p.context.span_id == span.parent.span_id), None)
        for span in spans
    }
    assert parent_of == {
        "POST /inventory": None,
        "StartWorkflow:DeviceCheckWorkflow": "POST /inventory",
        "RunWorkflow:DeviceCheckWorkflow": "StartWorkflow:DeviceCheckWorkflow",
        "StartActivity:device_compatibility": "StartWorkflow:DeviceCheckWorkflow",
        "RunActivity:device_compatibility": "StartActivity:device_compatibility",
        "CompleteWorkflow:DeviceCheckWorkflow": "StartWorkflow:DeviceCheckWorkflow",
    }


async def test_tracing_is_off_without_an_endpoint(data_dir, sqlite_url, temporal_env):
    settings = make_settings(
        data_dir, sqlite_url, temporal_address=temporal_env.client.service_client.config.target_host
    )
    assert settings.observability.otlp_endpoint == ""
    assert tracer_provider(settings.observability.otlp_endpoint, settings.observability.otlp_service_name) is None
    client = await connect(settings)
    assert client.config()["interceptors"] == []
    async with ApiClient.running(settings) as api:
        assert [m.cls.__name__ for m in api.app.user_middleware] == ["TrustedProxies", "Edge"]  # no tracing one


class Collector(BaseHTTPRequestHandler):
    received: list[tuple[str, bytes]] = []  # noqa: RUF012 — one collector per test module run, read by the test

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        self.received.append((self.path, self.rfile.read(length)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def settings_overrides(collector: str) -> dict[str, str]:
    return {"otlp_endpoint": collector, "otlp_service_name": "lineup-api-test"}


async def test_with_an_endpoint_the_request_span_is_exported_over_otlp_http(api, settings):
    Collector.received.clear()
    assert (await api.call("/plan", body("plan_list")))["msg_code"] == "RESTAPI000"
    provider = tracer_provider(settings.observability.otlp_endpoint, settings.observability.otlp_service_name)
    assert provider is not None and provider.force_flush()
    exported = [(path, ExportTraceServiceRequest.FromString(payload)) for path, payload in Collector.received]
    assert {path for path, _ in exported} == {"/v1/traces"}
    spans = [
        (attribute.value.string_value, span.name)
        for _, request in exported
        for resource in request.resource_spans
        for attribute in resource.resource.attributes
        if attribute.key == "service.name"
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    assert spans == [("lineup-api-test", "POST /plan")]
