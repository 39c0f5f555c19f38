"""`GET /healthz` (the process is up) and `GET /readyz` (database, Temporal and a worker are there)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import ResourcesDep
from models.envelope import Envelope, MsgCode
from services.health import readiness_problems

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Envelope)
async def healthz() -> JSONResponse:
    """The process is up."""
    return JSONResponse(Envelope(msg_code=MsgCode.SUCCESS, msg="OK").body())


@router.get("/readyz", response_model=Envelope)
async def readyz(resources: ResourcesDep) -> JSONResponse:
    """Ready when the database answers, Temporal answers and a worker polls the task queue."""
    if problems := await readiness_problems(resources):
        return JSONResponse(Envelope(msg_code=MsgCode.ERROR, msg="Not ready", errors=problems).body(), status_code=503)
    return JSONResponse(Envelope(msg_code=MsgCode.SUCCESS, msg="Ready").body())
