"""The carrier's port-status push (issue 20 target 3): `POST /carrier/port-status`, a JSON body naming the port
(`{"vendor_id", "port_id", "enrollment_id", "status"}`) signed with LINEUP_PORT_PUSH_SECRET as Lineup signs its
own webhooks: `X-Carrier-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.body">`. A push is only a hint: the
port's workflow is signalled to ask the carrier now (its next poll, not the pushed status, is what is recorded).
Polling stays on as the fallback, at LINEUP_PORT_PUSH_FALLBACK_SECONDS.

Replays (issue 27, finding 9: one signed push replayed 3,000 times made ~370 extra carrier polls): a push signed
longer ago than LINEUP_PORT_PUSH_TOLERANCE_SECONDS is refused, one taken before is answered without a poll (its
digest is kept in the database), a port's pushes make at most LINEUP_PORT_PUSH_POLLS_PER_HOUR polls, and the
push's vendor must be the vendor whose port it is."""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from datetime import timedelta

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from temporalio.service import RPCError, RPCStatusCode

from dispatch.context import Resources
from models.errors import LineupError
from models.tables.porting import PortIn
from persistence.port_pushes import Taken, forget, take, vendor_of_line
from workflows.ids import port_workflow_id
from workflows.porting import CARRIER_PUSHED

log = logging.getLogger("lineup.port_push")
SIGNATURE_HEADER = "x-carrier-signature"
TAKEN = {
    Taken.POLL: "Port status push received",
    Taken.WITHIN_LIMIT: "Port status push received; the port was asked recently, its next poll will see the change",
    Taken.REPLAYED: "Port status push already received",
}


class PortPush(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    vendor_id: str = Field(max_length=64)
    port_id: str = Field(min_length=1, max_length=64)
    enrollment_id: str = Field(min_length=1, max_length=64)
    status: str = Field(default="", max_length=64)


class PushRefused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def signature(secret: str, body: bytes, timestamp: int) -> str:
    """What the carrier sends (and the sandbox computes) in X-Carrier-Signature."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def signed_at(secret: str, body: bytes, offered: str | None, *, tolerance: float) -> int:
    """The push's signed timestamp; PushRefused (401) for a bad signature or one outside the tolerance."""
    parts = dict(item.split("=", 1) for item in (offered or "").split(",") if "=" in item)
    timestamp, given = parts.get("t", ""), parts.get("v1", "")
    if not (secret and timestamp.isdigit() and len(timestamp) <= 12):
        raise PushRefused(401, "Invalid signature")
    if not hmac.compare_digest(signature(secret, body, int(timestamp)), f"t={timestamp},v1={given}"):
        raise PushRefused(401, "Invalid signature")
    if abs(time.time() - int(timestamp)) > tolerance:
        raise PushRefused(401, "Signature timestamp outside the tolerance")
    return int(timestamp)


async def port_pushed(resources: Resources, body: bytes, offered: str | None) -> str:
    """Checks the signature and its time, the port and its vendor against our records, takes the push once, then
    signals the port's workflow (within the hourly limit). The answer's words; PushRefused with the HTTP status
    to answer otherwise."""
    porting = resources.settings.porting
    secret = porting.push_secret.get_secret_value()
    if not secret:
        raise PushRefused(404, "Port status pushes are not enabled")
    timestamp = signed_at(secret, body, offered, tolerance=porting.push_tolerance_seconds)
    try:
        push = PortPush.model_validate_json(body)
    except ValidationError:
        raise PushRefused(400, "Invalid port status push") from None
    async with resources.db.transaction() as session:
        order = await session.get(PortIn, push.enrollment_id)
        vendor = await vendor_of_line(session, push.enrollment_id)
    if order is None or order.carrier_port_id != push.port_id or vendor != push.vendor_id:
        raise PushRefused(404, "Port not found")
    digest = hashlib.sha256(f"{timestamp}.".encode() + body).hexdigest()
    taken = await take(
        resources.db,
        digest=digest,
        enrollment_id=push.enrollment_id,
        polls_per_hour=porting.push_polls_per_hour,
        keep=timedelta(seconds=2 * porting.push_tolerance_seconds),
    )
    if taken == Taken.POLL:
        await _ask_now(resources, push, digest)
    return TAKEN[taken]


async def _ask_now(resources: Resources, push: PortPush, digest: str) -> None:
    try:
        client = resources.temporal.client()  # LineupError while Temporal is not reachable
        await client.get_workflow_handle(port_workflow_id(push.enrollment_id)).signal(CARRIER_PUSHED)
    except (RPCError, LineupError) as problem:
        await forget(resources.db, digest)  # the carrier's next delivery of it is new to us
        if isinstance(problem, RPCError) and problem.status == RPCStatusCode.NOT_FOUND:  # the workflow has ended
            raise PushRefused(404, "Port is no longer followed") from None
        raise PushRefused(503, "The workflow engine is unavailable, please try again later") from None
    log.info("port %s pushed as %s: its workflow asks the carrier now", push.enrollment_id, push.status or "?")
