"""What operators and their tools poll: `GET /healthz` (the process is up), `GET /readyz` (the database,
Temporal and a worker are there) and `GET /metrics` (Prometheus text; no envelope and no API token).

/metrics tells how busy the service is and how many lines are stuck: with LINEUP_METRICS_TOKEN it asks for that
bearer token; in production without one it is not served on the API's port at all, only on the loopback port
LINEUP_METRICS_PORT (where only the host's own scraper or proxy reaches)."""

from __future__ import annotations

import asyncio
import hmac

import pydantic_core
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from api.readiness import readiness_problems
from dispatch.context import Resources
from models.envelope import Envelope, MsgCode
from observability.metrics import CONTENT_TYPE, exposition

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
    settings = resources.settings
    expected = settings.observability.metrics_token.get_secret_value()
    if expected:
        offered = request.headers.get("authorization", "")
        if not hmac.compare_digest(offered.encode(), f"Bearer {expected}".encode()):
            return Response("a bearer token is required\n", 401, {"WWW-Authenticate": "Bearer"}, "text/plain")
    elif settings.profile == "production":
        return Response("not served here: see LINEUP_METRICS_PORT\n", 404, media_type="text/plain")
    return await scraped(resources)


async def scraped(resources: Resources) -> Response:
    return Response(exposition(await resources.scrapes.get(resources.db)), media_type=CONTENT_TYPE)


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


def routes(base_path: str) -> list[Route]:
    return [
        Route(f"{base_path}/healthz", healthz, methods=["GET"]),
        Route(f"{base_path}/readyz", readyz, methods=["GET"]),
        Route(f"{base_path}/metrics", metrics, methods=["GET"]),
    ]
