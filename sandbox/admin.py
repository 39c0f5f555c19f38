"""The sandbox's own controls under /sandbox: health, faults, SIM release, received mail, SMTP outage."""

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from sandbox.deps import StoreDep
from sandbox.faults import Faults, FaultsDep
from sandbox.mail_sink import set_smtp_available, smtp_available

router = APIRouter(prefix="/sandbox")


class FaultUpdate(BaseModel):
    """New fault settings; a key left out keeps its current value."""

    fault_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    latency_ms: int | None = Field(default=None, ge=0)
    # Path prefixes the fault rate applies to, e.g. ["/carrier/activations", "/carrier/ports"]; [] for all.
    scope: list[str] | None = Field(default=None, max_length=20)


class ReleaseSim(BaseModel):
    """The SIM to free."""

    iccid: str


class SmtpSwitch(BaseModel):
    """Whether the SMTP sink accepts mail."""

    available: bool


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Liveness probe."""
    return {"status": "ok"}


def _shown(faults: Faults) -> dict[str, Any]:
    return {"fault_rate": faults.fault_rate, "latency_ms": faults.latency_ms, "scope": faults.scope}


@router.get("/faults")
async def get_faults(faults: FaultsDep) -> dict[str, Any]:
    """Current fault rate, latency and the paths the rate applies to ([]: every carrier and NLAD call)."""
    return _shown(faults)


@router.post("/faults")
async def set_faults(body: FaultUpdate, faults: FaultsDep) -> dict[str, Any]:
    """Change the fault rate, latency and/or scope while running."""
    for name, value in body.model_dump(exclude_none=True).items():
        setattr(faults, name, value)
    return _shown(faults)


@router.post("/carrier/release-sim")
async def release_sim(body: ReleaseSim, store: StoreDep) -> dict[str, bool]:
    """Deactivate the line holding this SIM, as carrier support would, so it can be activated again."""
    return {"released": store.release_iccid(body.iccid) > 0}


@router.get("/carrier/lines")
async def lines_of_enrollment(enrollment_id: str, store: StoreDep) -> dict[str, Any]:
    """Every line the carrier holds for an enrollment: a duplicate activation would show here."""
    return {"lines": store.lines_of_enrollment(enrollment_id)}


@router.get("/mail")
async def list_mail(store: StoreDep, to: str | None = None) -> dict[str, Any]:
    """Messages the SMTP sink received, oldest first; `to` keeps those addressed to one recipient."""
    messages = store.list_mail()
    if to is not None:
        wanted = to.strip().lower()
        messages = [m for m in messages if wanted in (r.lower() for r in m["recipients"])]
    return {"messages": messages}


@router.delete("/mail")
async def clear_mail(store: StoreDep) -> dict[str, Any]:
    """Forget every received message."""
    store.clear_mail()
    return {"messages": []}


@router.get("/smtp")
async def get_smtp(store: StoreDep) -> dict[str, bool]:
    """Whether the SMTP sink accepts mail."""
    return {"available": smtp_available(store)}


@router.post("/smtp")
async def set_smtp(body: SmtpSwitch, store: StoreDep) -> dict[str, bool]:
    """Make the SMTP sink refuse every transaction with 421 (false) or accept again (true)."""
    set_smtp_available(store, body.available)
    return {"available": smtp_available(store)}
