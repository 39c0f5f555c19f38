"""create_app(): the lifespan (database, Temporal client, cipher, payment gateway), one route per action group
served by the dispatcher, /authenticate, the probes, the support console, the docs, the envelope's error
handlers and the edge middleware."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from opentelemetry.sdk.trace import TracerProvider
from starlette.routing import Route
from temporalio.client import Client

from adapters.payments import PaymentGateway
from api import carrier_push, docs, errors, openapi, probes
from api.authenticate import authenticate
from api.catalog import CATALOG
from api.codec import CodecEndpoint
from api.console import enrollments as console_enrollments
from api.console import overview as console_overview
from api.console import routes as console
from api.dispatch import endpoint
from api.edge import Edge
from dispatch.context import Resources
from dispatch.gates import LoginGates
from dispatch.metrics import SnapshotCache, Workers
from models.crypto import cipher_for
from models.geography import city_of_zip
from models.settings import Settings, get_settings
from observability.logs import configure_logging
from observability.tracing import instrument_app, tracer_provider
from orchestration.link import TemporalLink
from persistence.engine import Database

TITLE, VERSION = "Lineup", "0.1.0"
SUMMARY = "Prepaid wireless enrollment and account care for carrier sales channels"


def create_app(
    settings: Settings | None = None, *, temporal: Client | None = None, tracing: TracerProvider | None = None
) -> FastAPI:
    """`temporal` and `tracing` stand in for what the settings would give (tests hand in their own)."""
    settings = settings or get_settings()
    base = settings.api.base_path
    db = Database.open(settings)

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
        await asyncio.to_thread(city_of_zip, "")  # loads the ZIP table before the first availability call
        scrape_port = await probes.serve_metrics_port(resources)
        yield
        if scrape_port is not None:
            scrape_port.close()
        await resources.temporal.close()
        await resources.payments.close()
        await db.dispose()

    app = FastAPI(
        title=TITLE,
        version=VERSION,
        summary=SUMMARY,
        lifespan=lifespan,
        openapi_url=None,  # api.openapi builds the document from the action declarations
        docs_url=None,  # FastAPI's pages load their assets from a CDN; api.docs serves them from here
        redoc_url=None,
        redirect_slashes=False,  # a redirect is not the envelope; the edge already drops a trailing slash
    )
    app.state.settings = settings
    routes = [Route(f"{base}/{group}", endpoint(group), methods=["POST"]) for group in CATALOG.groups]
    routes += [Route(f"{base}/authenticate", authenticate, methods=["POST"]), *probes.routes(base)]
    routes += carrier_push.routes(base)
    routes += CodecEndpoint(settings).routes(base)
    app.router.routes.extend(routes)
    app.include_router(console_overview.router, prefix=base)
    app.include_router(console_enrollments.router, prefix=base)  # before the console's catch-all page
    app.include_router(console.router, prefix=base)
    description = openapi.document(title=TITLE, version=VERSION, summary=SUMMARY, base_path=base)
    docs.install(app, base_path=base, document=description, public=settings.docs_public)
    errors.install(app)
    app.add_middleware(Edge, settings=settings)
    if provider := tracing or tracer_provider(
        settings.observability.otlp_endpoint, settings.observability.otlp_service_name
    ):
        instrument_app(app, provider)  # outermost: the request's span covers everything the API does
    return app


def app_from_env() -> FastAPI:
    """uvicorn factory for `make run` and production."""
    settings = get_settings()
    configure_logging(settings.observability.log_level)
    return create_app(settings)
