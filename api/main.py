"""create_app(): lifespan (engine, Temporal client), routers, envelope handlers, body limit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from temporalio.client import Client

from activities.adapters.payments import PaymentGateway
from activities.lines import LineRepository
from api import errors, openapi
from api.audit import AuditLog
from api.logs import configure_logging
from api.middleware import BodyLimit, RequestContext
from api.routes import (
    agent, auth, authenticate, cards, customer, enrollment, health, inventory, mail, nlad, notes, ops, payment, plan,
    port,
)  # fmt: skip
from api.temporal import TemporalConnection
from models.crypto import cipher_for
from models.db import make_engine, session_factory
from models.settings import Settings, get_settings

OPERATION_ROUTERS = (
    authenticate.router, customer.router, agent.router, payment.router, port.router, enrollment.router, plan.router,
    ops.router, nlad.router, mail.router, inventory.router, notes.router, cards.router, auth.router,
)  # fmt: skip


def create_app(settings: Settings | None = None, *, temporal: Client | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings)
        app.state.sessions = session_factory(engine)
        app.state.audit = AuditLog(app.state.sessions)
        app.state.lines = LineRepository(app.state.sessions, cipher_for(settings))
        app.state.gateway = PaymentGateway(settings.payments_url)
        app.state.temporal = TemporalConnection(settings, temporal)
        app.state.temporal.start()
        yield
        await app.state.temporal.close()
        await app.state.gateway.close()
        await engine.dispose()

    app = FastAPI(
        title="Lineup",
        version="0.1.0",
        summary="Prepaid wireless enrollment and account care for carrier sales channels",
        lifespan=lifespan,
        openapi_url=f"{settings.base_path}/openapi.json",
        docs_url=f"{settings.base_path}/docs",
        redoc_url=None,
    )
    app.state.settings = settings
    operations = APIRouter(prefix=settings.base_path)
    for router in (*OPERATION_ROUTERS, health.router):
        operations.include_router(router)
    app.include_router(operations)
    errors.install(app)
    openapi.install(app)
    # Added last is outermost: the request id exists before the body limit can refuse anything.
    app.add_middleware(BodyLimit, settings=settings)
    app.add_middleware(RequestContext, settings=settings)
    return app


def app_from_env() -> FastAPI:
    """uvicorn factory for `make run` and production."""
    settings = get_settings()
    configure_logging(settings.log_level)
    return create_app(settings)
