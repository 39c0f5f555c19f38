"""create_app(): lifespan (engine, Temporal client), routers, envelope handlers, body limit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from opentelemetry.sdk.trace import TracerProvider
from temporalio.client import Client

from adapters.payments import PaymentGateway
from api import docs, errors, openapi
from api.console import routes as console
from api.middleware import BodyDeadline, BodyLimit, RequestContext
from api.routes import (
    agent,
    auth,
    authenticate,
    cards,
    customer,
    enrollment,
    health,
    inventory,
    mail,
    metrics,
    nlad,
    notes,
    ops,
    payment,
    plan,
    port,
)  # fmt: skip
from models.crypto import cipher_for
from models.geography import city_of_zip
from models.settings import Settings, get_settings
from observability.logs import configure_logging
from observability.tracing import instrument_app, tracer_provider
from persistence.engine import Database
from services.context import Resources
from services.temporal import TemporalLink

OPERATION_ROUTERS = (
    authenticate.router, customer.router, agent.router, payment.router, port.router, enrollment.router, plan.router,
    ops.router, nlad.router, mail.router, inventory.router, notes.router, cards.router, auth.router,
)  # fmt: skip


def create_app(
    settings: Settings | None = None, *, temporal: Client | None = None, tracing: TracerProvider | None = None
) -> FastAPI:
    """`temporal` and `tracing` stand in for what the settings would give (tests hand in their own)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        resources = Resources(
            settings=settings, db=Database.open(settings), cipher=cipher_for(settings),
            temporal=TemporalLink(settings, temporal), payments=PaymentGateway(settings.systems.payments_url),
        )  # fmt: skip
        app.state.resources = resources
        resources.temporal.start()
        await asyncio.to_thread(city_of_zip, "")  # loads the ZIP table before the first availability call
        yield
        await resources.temporal.close()
        await resources.payments.close()
        await resources.db.dispose()

    app = FastAPI(
        title="Lineup",
        version="0.1.0",
        summary="Prepaid wireless enrollment and account care for carrier sales channels",
        lifespan=lifespan,
        openapi_url=f"{settings.api.base_path}/openapi.json",
        docs_url=None,  # FastAPI's pages load their assets from a CDN; api.docs serves them from here
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
        redirect_slashes=False,  # a redirect is not the envelope; RequestContext already drops a trailing slash
    )
    app.state.settings = settings
    operations = APIRouter(prefix=settings.api.base_path)
    for router in (*OPERATION_ROUTERS, health.router, metrics.router, console.router):
        operations.include_router(router)
    app.include_router(operations)
    errors.install(app)
    openapi.install(app, base_path=settings.api.base_path)
    docs.install(app, base_path=settings.api.base_path)
    # Added last is outermost: the request id exists before the body limit can refuse anything.
    app.add_middleware(BodyLimit, settings=settings)
    app.add_middleware(BodyDeadline, settings=settings)  # inside RequestContext: its answer is an envelope
    app.add_middleware(RequestContext, settings=settings)
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
