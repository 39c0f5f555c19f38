"""A webhook receiver, as a channel would run one: it records what Lineup delivers, and can play an outage.

- `POST /sandbox/webhooks`: a delivery. Recorded as it arrived (the raw body text and every header) and
  answered 200 `{"received": true}`, unless the receiver is told to fail (below).
- `GET /sandbox/webhooks`: the recorded deliveries, oldest first, as
  `[{"received_at": ISO-8601 UTC, "headers": {name: value}, "body": "<the raw body text>"}]`. Header names are
  lower-case (as HTTP/1.1 servers read them); a header sent twice is one value joined by ", ".
- `DELETE /sandbox/webhooks`: forget them.
- `POST /sandbox/webhooks/faults` `{"fail": bool, "fail_next": n, "status": 400-599, "latency_ms": ms}` (a key
  left out keeps its value): while `fail` is true every delivery, and otherwise the next `fail_next` ones, are
  answered `status` (default 503) and NOT recorded, as a receiver that is down would; `latency_ms` delays every
  answer (a delivery still recorded when the sender gives up first: it arrived, the answer came too late).
  `GET /sandbox/webhooks/faults` shows the settings and `refused`, how many deliveries were answered with the
  failure so far. They start off at every start of the sandbox.
"""

import asyncio
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from sandbox.deps import StoreDep

router = APIRouter(prefix="/sandbox/webhooks")


@dataclass
class ReceiverFaults:
    """How the receiver answers now; changed by POST /sandbox/webhooks/faults."""

    fail: bool = False
    fail_next: int = 0
    status: int = 503
    latency_ms: int = 0
    refused: int = 0

    def take_failure(self) -> bool:
        """Whether this delivery is to fail, using up one of `fail_next`."""
        if self.fail:
            return True
        if self.fail_next > 0:
            self.fail_next -= 1
            return True
        return False


class ReceiverFaultUpdate(BaseModel):
    """New receiver settings; a key left out keeps its current value."""

    fail: bool | None = None
    fail_next: int | None = Field(default=None, ge=0)
    status: int | None = Field(default=None, ge=400, le=599)
    latency_ms: int | None = Field(default=None, ge=0, le=120_000)


def get_receiver_faults(request: Request) -> ReceiverFaults:
    """The app's receiver settings."""
    faults: ReceiverFaults = request.app.state.receiver_faults
    return faults


ReceiverFaultsDep = Annotated[ReceiverFaults, Depends(get_receiver_faults)]


def received_headers(request: Request) -> dict[str, str]:
    """Every header of the request by lower-case name; repeated ones joined as one HTTP field value."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in request.headers.raw:
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers


@router.post("")
async def receive(request: Request, store: StoreDep, faults: ReceiverFaultsDep) -> JSONResponse:
    """One delivery: recorded and answered 200, or answered with the failure the receiver plays."""
    body = (await request.body()).decode("utf-8", "replace")
    failing = faults.take_failure()
    if not failing:
        received_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        store.add_webhook(received_at=received_at, headers=received_headers(request), body=body)
    if faults.latency_ms:
        await asyncio.sleep(faults.latency_ms / 1000)
    if failing:
        faults.refused += 1
        return JSONResponse({"received": False, "error": "receiver unavailable"}, status_code=faults.status)
    return JSONResponse({"received": True})


@router.get("")
async def list_deliveries(store: StoreDep) -> list[dict[str, Any]]:
    """Recorded deliveries, oldest first."""
    return store.list_webhooks()


@router.delete("")
async def clear_deliveries(store: StoreDep) -> list[dict[str, Any]]:
    """Forget every recorded delivery."""
    store.clear_webhooks()
    return []


@router.get("/faults")
async def get_faults(faults: ReceiverFaultsDep) -> dict[str, Any]:
    """How the receiver answers now, and how many deliveries it refused so far."""
    return asdict(faults)


@router.post("/faults")
async def set_faults(body: ReceiverFaultUpdate, faults: ReceiverFaultsDep) -> dict[str, Any]:
    """Make the receiver fail (all deliveries, or the next n) or answer again; see the module docstring."""
    for name, value in body.model_dump(exclude_none=True).items():
        setattr(faults, name, value)
    return asdict(faults)
