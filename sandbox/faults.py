"""Injected unreliability: a fraction of calls answered 503, and added latency, changeable at run time. The
fraction may be scoped to some paths (`POST /sandbox/faults {"fault_rate": 1, "scope": ["/carrier/activations"]}`:
provisioning down while the carrier's other services answer); a key left out keeps its value, `[]` is all."""

import asyncio
import random
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from sandbox.config import SandboxConfig

SERVICE_UNAVAILABLE = {"STATUSCODE": "503", "DESCRIPTION": "Service unavailable"}


class ServiceDown(Exception):
    """The stand-in plays dead: answered as HTTP 503, like a real outage."""


@dataclass
class Faults:
    """Current fault settings; they start from config and change via POST /sandbox/faults."""

    fault_rate: float
    latency_ms: int
    # Path prefixes the fault rate applies to (e.g. "/carrier/activations": provisioning down, tax still up);
    # empty: every carrier and NLAD call.
    scope: list[str] = field(default_factory=list)

    def applies_to(self, path: str) -> bool:
        """Whether a call to `path` may be failed."""
        return not self.scope or path.startswith(tuple(self.scope))

    @classmethod
    def from_config(cls, config: SandboxConfig) -> "Faults":
        """Initial settings from LINEUP_SANDBOX_FAULT_RATE / LINEUP_SANDBOX_LATENCY_MS."""
        return cls(fault_rate=config.fault_rate, latency_ms=config.latency_ms)


def get_faults(request: Request) -> Faults:
    """The app's live fault settings."""
    faults: Faults = request.app.state.faults
    return faults


FaultsDep = Annotated[Faults, Depends(get_faults)]


async def add_latency(faults: FaultsDep) -> None:
    """Delay the call by the configured latency (every outside-system route)."""
    if faults.latency_ms > 0:
        await asyncio.sleep(faults.latency_ms / 1000)


async def maybe_fail(request: Request, faults: FaultsDep) -> None:
    """Answer 503 for a `fault_rate` fraction of calls within the scope, before the call does anything."""
    if faults.fault_rate > 0 and faults.applies_to(request.url.path) and random.random() < faults.fault_rate:
        raise ServiceDown()
