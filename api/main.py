"""The app: `create_app` builds it with its lifespan (the database, the Temporal client, the cipher, the payment
gateway, the login gates), one route per action group, /authenticate, the support console, the docs, and what
operators poll: /healthz, /readyz (the database, Temporal, a live worker), /metrics (on the API's port behind a
token, or alone on a loopback port), the codec endpoint for the Temporal UI, and the carrier's port-status push."""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import pydantic_core
from cryptography.exceptions import InvalidTag
from fastapi import FastAPI
from google.protobuf.json_format import MessageToJson, Parse, ParseError
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from sqlalchemy import text
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from temporalio.api.common.v1 import Payloads
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

from adapters.payments import PaymentGateway
from api import edge, openapi
from api.access import LoginGates
from api.auth import authenticate
from api.catalog import CATALOG
from api.console import enrollments, overview
from api.console import routes as console
from api.dispatch import GroupEndpoint, Resources
from api.porting import SIGNATURE_HEADER, PushRefused, port_pushed
from api.temporal import TemporalLink
from models.address import zip_index
from models.crypto import PayloadCipher, cipher_for, load_key
from models.db import Database
from models.envelope import Envelope, MsgCode
from models.observability import CONTENT_TYPE, configure_logging, exposition, tracer_provider
from models.settings import Settings, get_settings
from models.support import SnapshotCache, Workers, last_beat

VERSION = "0.2.0"
JSON = "application/json"
# A worker long-polls for about a minute; a poller seen within two is still there.
POLLER_FRESHNESS = timedelta(minutes=2)
CHECK_TIMEOUT = 3.0
ALLOWED_HEADERS = "Content-Type, X-Namespace, Authorization, Authorization-Extras"
# Scrapes and probes would be most of the spans and say nothing about an enrollment.
UNTRACED_PATHS = "metrics,healthz,readyz,docs,redoc,openapi.json"


def create_app(
    settings: Settings | None = None, *, temporal: Client | None = None, tracing: TracerProvider | None = None
) -> FastAPI:
    """`temporal` and `tracing` stand in for what the settings would give (tests hand in their own)."""
    settings = settings or get_settings()
    base = settings.api.base_path
    db = Database(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        resources = Resources(
            settings=settings,
            db=db,
            cipher=cipher_for(settings),
            temporal=TemporalLink(settings, temporal),
            payments=PaymentGateway(settings.systems.payments_url),
            gates=LoginGates.of(settings),
            scrapes=SnapshotCache(
                settings.observability.metrics_cache_seconds,
                Workers(settings.temporal.task_queue, settings.worker.stale_seconds),
            ),
        )
        app.state.resources = resources
        resources.temporal.start()
        await asyncio.to_thread(zip_index)  # read (or built, by a child process) before the first lookup
        scrape_port = await serve_metrics_port(resources)
        yield
        if scrape_port is not None:
            scrape_port.close()
        await resources.temporal.close()
        await resources.payments.close()
        await db.dispose()

    app = FastAPI(
        title="Lineup",
        version=VERSION,
        summary="Prepaid wireless enrollment and account care for carrier sales channels",
        lifespan=lifespan,
        openapi_url=None,  # api.openapi builds the document from the action declarations
        docs_url=None,  # FastAPI's pages load their assets from a CDN; api.openapi serves them from here
        redoc_url=None,
        redirect_slashes=False,  # a redirect is not the envelope; the edge already drops a trailing slash
    )
    app.state.settings = settings
    codec = CodecEndpoint(settings)
    operations = {f"{base}/{group}": GroupEndpoint(group, CATALOG) for group in CATALOG.groups}
    app.router.routes.extend(
        [
            # Routed for the other methods' answers (405) and the OpenAPI document; a POST goes from the edge.
            *(Route(path, endpoint, methods=["POST"]) for path, endpoint in operations.items()),
            Route(f"{base}/authenticate", authenticate, methods=["POST"]),
            Route(f"{base}/healthz", healthz, methods=["GET"]),
            Route(f"{base}/readyz", readyz, methods=["GET"]),
            Route(f"{base}/metrics", metrics, methods=["GET"]),
            Route(f"{base}/carrier/port-status", port_status_pushed, methods=["POST"]),
            Route(f"{base}/codec/encode", codec.answer, methods=["POST", "OPTIONS"]),
            Route(f"{base}/codec/decode", codec.answer, methods=["POST", "OPTIONS"]),
        ]
    )
    app.include_router(overview.router, prefix=base)
    app.include_router(enrollments.router, prefix=base)  # before the console's catch-all page
    app.include_router(console.router, prefix=base)
    openapi.install(app, base_path=base, public=settings.docs_public)
    edge.install(app, page=console.problem_page)
    app.add_middleware(edge.Edge, settings=settings, direct=operations)
    # Outside the edge: every part of the app sees the address LINEUP_TRUSTED_PROXIES allows, whatever server runs it.
    app.add_middleware(edge.TrustedProxies, settings=settings)
    observed = settings.observability
    if provider := tracing or tracer_provider(observed.otlp_endpoint, observed.otlp_service_name):
        # Outermost: a server span per HTTP request covers everything the API does, and a workflow started while
        # handling it becomes that span's child. No spans per ASGI send/receive: a request is one span.
        FastAPIInstrumentor.instrument_app(
            app, tracer_provider=provider, excluded_urls=UNTRACED_PATHS, exclude_spans=["receive", "send"]
        )
    return app


def app_from_env() -> FastAPI:
    """uvicorn factory for `make run` and production."""
    settings = get_settings()
    configure_logging(settings.observability.log_level)
    return create_app(settings)


async def healthz(request: Request) -> Response:
    return envelope(Envelope(MsgCode.SUCCESS, "OK"))


async def readyz(request: Request) -> Response:
    """Ready when the database answers, Temporal answers and a worker is alive; else the problems, 503."""
    resources: Resources = request.app.state.resources
    found = await asyncio.gather(_database(resources), _worker(resources))
    if problems := [problem for problems in found for problem in problems]:
        return envelope(Envelope(MsgCode.ERROR, "Not ready", errors=problems), 503)
    return envelope(Envelope(MsgCode.SUCCESS, "Ready"))


async def metrics(request: Request) -> Response:
    resources: Resources = request.app.state.resources
    settings = resources.settings
    expected = settings.observability.metrics_token.get_secret_value()
    if expected:
        offered = request.headers.get("authorization", "")
        if not hmac.compare_digest(offered.encode(), f"Bearer {expected}".encode()):
            return Response("a bearer token is required\n", 401, {"WWW-Authenticate": "Bearer"}, "text/plain")
    elif settings.profile == "production":
        return Response("not served here: see LINEUP_METRICS_PORT\n", 404, media_type="text/plain")
    return Response(exposition(await resources.scrapes.get(resources.db)), media_type=CONTENT_TYPE)


async def port_status_pushed(request: Request) -> Response:
    resources: Resources = request.app.state.resources
    try:
        said = await port_pushed(resources, await request.body(), request.headers.get(SIGNATURE_HEADER))
    except PushRefused as refused:
        return refusal(refused.reason, refused.status)
    return envelope(Envelope(MsgCode.SUCCESS, said))


class CodecEndpoint:
    """/codec/encode and /codec/decode of one app; the key is read once, when the app is built."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.token = settings.temporal.codec_token.get_secret_value()
        self.cipher = PayloadCipher(load_key(settings)) if self.token else None

    async def answer(self, request: Request) -> Response:
        if self.cipher is None:
            return refusal("The codec endpoint is off (LINEUP_CODEC_TOKEN)", 404)
        origin = request.headers.get("origin")
        cors = self.cors(origin)
        if origin is not None and cors is None:
            return refusal("Origin not allowed", 403)
        if request.method == "OPTIONS":  # the browser's preflight: no credentials in it
            return Response(status_code=204, headers=cors)
        offered = request.headers.get("authorization", "")
        if not secrets.compare_digest(offered.encode(), f"Bearer {self.token}".encode()):
            return refusal("Unauthorized", 401, cors)
        namespace = request.headers.get("x-namespace")
        if namespace is not None and namespace != self.settings.temporal.namespace:
            return refusal(f"Namespace {namespace} is not Lineup's", 400, cors)
        try:
            payloads = Parse(await request.body(), Payloads())
        except (ParseError, UnicodeDecodeError):
            return refusal("The body must be the JSON form of temporal.api.common.v1.Payloads", 400, cors)
        convert = self.cipher.encode if request.url.path.endswith("/encode") else self.cipher.decode
        try:
            done = await convert(payloads.payloads)
        except (InvalidTag, ValueError):  # another key sealed it, or the data was altered
            return refusal("A payload cannot be decrypted with this key", 400, cors)
        body = MessageToJson(Payloads(payloads=done), indent=None)
        return Response(body, media_type=JSON, headers=cors)

    def cors(self, origin: str | None) -> dict[str, str] | None:
        """The CORS headers for an allowed origin; None for another (a call without Origin needs none)."""
        if origin is None or origin.rstrip("/") not in self.settings.temporal.codec_origin_set:
            return None if origin is not None else {}
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": "POST, OPTIONS",
            "Access-Control-Allow-Headers": ALLOWED_HEADERS,
            "Access-Control-Allow-Credentials": "true",
            "Access-Control-Max-Age": "600",
            "Vary": "Origin",
        }


async def serve_metrics_port(resources: Resources) -> asyncio.Server | None:
    """`GET /metrics` alone on 127.0.0.1:LINEUP_METRICS_PORT (None when 0): a bare HTTP/1.0 answer per
    connection. Every API process binds it (SO_REUSEPORT), so the kernel spreads scrapes over them; each answers
    every process's series in multiprocess mode."""
    port = resources.settings.observability.metrics_port
    if port == 0:
        return None

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
            wanted = head.split(b"\r\n", 1)[0].split(b" ")
            if wanted[:2] == [b"GET", b"/metrics"]:
                body = exposition(await resources.scrapes.get(resources.db))
                status, kind = b"200 OK", CONTENT_TYPE.encode()
            else:
                body, status, kind = b"not found\n", b"404 Not Found", b"text/plain"
            writer.write(b"HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" % (status, kind, len(body)))
            writer.write(body)
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass  # a client too slow or gone: nothing to answer
        finally:
            writer.close()

    return await asyncio.start_server(answer, "127.0.0.1", port, reuse_port=True)


async def _database(resources: Resources) -> list[str]:
    try:
        async with resources.db.transaction(write=False) as session:
            await asyncio.wait_for(session.rows(text("SELECT 1")), CHECK_TIMEOUT)
    except Exception:  # noqa: BLE001 — any failure is "not reachable"; the reason stays in the logs
        return ["Database is not reachable"]
    return []


async def _worker(resources: Resources) -> list[str]:
    client = resources.temporal.connected
    if client is None:
        return ["Temporal is not reachable"]
    settings = resources.settings
    describe = DescribeTaskQueueRequest(
        namespace=settings.temporal.namespace,
        task_queue=TaskQueue(name=settings.temporal.task_queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    try:
        reply = await client.workflow_service.describe_task_queue(describe, timeout=timedelta(seconds=CHECK_TIMEOUT))
    except Exception:  # noqa: BLE001
        return ["Temporal is not reachable"]
    now = datetime.now(UTC)
    fresh = [p for p in reply.pollers if now - p.last_access_time.ToDatetime(UTC) < POLLER_FRESHNESS]
    if not fresh:
        return [f"No worker is polling task queue {settings.temporal.task_queue}"]
    return await _heartbeat(resources)


async def _heartbeat(resources: Resources) -> list[str]:
    """A poller stays listed for a minute or more after its process froze (its last long poll); the worker's
    heartbeat row, written every few seconds from its event loop, says it still runs."""
    settings = resources.settings
    try:
        async with resources.db.transaction(write=False) as session:
            seen = await asyncio.wait_for(last_beat(session, settings.temporal.task_queue), CHECK_TIMEOUT)
    except Exception:  # noqa: BLE001 — the database check reports the outage
        return []
    stale = timedelta(seconds=settings.worker.stale_seconds)
    if seen is None or datetime.now(UTC) - seen > stale:
        queue, seconds = settings.temporal.task_queue, stale.total_seconds()
        return [f"No worker of task queue {queue} answered in the last {seconds:g} s"]
    return []


def envelope(answer: Envelope, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(pydantic_core.to_json(answer.body()), status_code=status, media_type=JSON, headers=headers)


def refusal(message: str, status: int, headers: dict[str, str] | None = None) -> Response:
    return envelope(Envelope(MsgCode.ERROR, message), status, headers)
