"""What operators and their tools poll: `GET /healthz` (the process is up), `GET /readyz` (the database,
Temporal and a worker are there) and `GET /metrics` (Prometheus text; no envelope and no token)."""

from __future__ import annotations

import pydantic_core
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from models.envelope import Envelope, MsgCode
from observability.metrics import CONTENT_TYPE, exposition
from services.context import Resources
from services.health import readiness_problems
from services.metrics import snapshot

JSON = "application/json"


def envelope(answer: Envelope, status: int = 200) -> Response:
    return Response(pydantic_core.to_json(answer.body()), status_code=status, media_type=JSON)


async def healthz(request: Request) -> Response:
    return envelope(Envelope(MsgCode.SUCCESS, "OK"))


async def readyz(request: Request) -> Response:
    resources: Resources = request.app.state.resources
    if problems := await readiness_problems(resources):
        return envelope(Envelope(MsgCode.ERROR, "Not ready", errors=problems), 503)
    return envelope(Envelope(MsgCode.SUCCESS, "Ready"))


async def metrics(request: Request) -> Response:
    resources: Resources = request.app.state.resources
    return Response(exposition(await snapshot(resources.db)), media_type=CONTENT_TYPE)


def routes(base_path: str) -> list[Route]:
    return [
        Route(f"{base_path}/healthz", healthz, methods=["GET"]),
        Route(f"{base_path}/readyz", readyz, methods=["GET"]),
        Route(f"{base_path}/metrics", metrics, methods=["GET"]),
    ]
