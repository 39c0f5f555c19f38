"""The sandbox FastAPI app: carrier, NLAD and payment stand-ins plus the /sandbox controls."""

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from sandbox import admin, carrier, carriers, ledger, nlad, payments, ports, tax, webhooks
from sandbox.config import SandboxConfig
from sandbox.deps import MissingIdempotencyKey
from sandbox.faults import SERVICE_UNAVAILABLE, Faults, ServiceDown
from sandbox.store import Store
from sandbox.webhooks import ReceiverFaults


async def on_service_down(request: Request, exc: Exception) -> JSONResponse:
    """HTTP 503 with the carrier-style body, whoever plays the outage."""
    return JSONResponse(SERVICE_UNAVAILABLE, status_code=503)


async def on_missing_key(request: Request, exc: Exception) -> JSONResponse:
    """HTTP 400 naming the missing header."""
    return JSONResponse({"STATUSCODE": "400", "DESCRIPTION": "Idempotency-Key header required"}, status_code=400)


async def on_invalid_request(request: Request, exc: Exception) -> JSONResponse:
    """HTTP 422 that names the bad fields but never echoes their values (card numbers, PINs)."""
    assert isinstance(exc, RequestValidationError)
    problems: list[dict[str, Any]] = [
        {"loc": list(problem.get("loc", ())), "msg": problem.get("msg", ""), "type": problem.get("type", "")}
        for problem in exc.errors()
    ]
    return JSONResponse({"detail": problems}, status_code=422)


def create_app(config: SandboxConfig | None = None, *, store: Store | None = None) -> FastAPI:
    """Build the app; pass `store` to share it with an SMTP sink started separately."""
    config = config or SandboxConfig()
    app = FastAPI(title="Lineup sandbox", description="Stand-ins for the carrier, NLAD and payment gateway.")
    # State is made here, not in a lifespan, so in-process test clients (which skip lifespan) get it too.
    app.state.config = config
    app.state.store = store or Store(config.db_path)
    app.state.faults = Faults.from_config(config)
    app.state.receiver_faults = ReceiverFaults()
    app.add_exception_handler(ServiceDown, on_service_down)
    app.add_exception_handler(MissingIdempotencyKey, on_missing_key)
    app.add_exception_handler(RequestValidationError, on_invalid_request)
    for module in (carrier, carriers, ports, tax, nlad, payments, admin, ledger, webhooks):
        app.include_router(module.router)
    return app
