"""`GET /metrics`: Prometheus text, for the scraper; no envelope and no token (it carries counts only)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from api.deps import ResourcesDep
from observability.metrics import CONTENT_TYPE, exposition
from services.metrics import snapshot

router = APIRouter(tags=["health"])


@router.get("/metrics", include_in_schema=False)
async def metrics(resources: ResourcesDep) -> Response:
    return Response(exposition(await snapshot(resources.db)), media_type=CONTENT_TYPE)
