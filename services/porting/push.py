"""The carrier's port-status push (issue 20 target 3): `POST /carrier/port-status`, a JSON body naming the port
(`{"vendor_id", "port_id", "enrollment_id", "status"}`) signed with LINEUP_PORT_PUSH_SECRET in
`X-Carrier-Signature: sha256=<hex HMAC-SHA256 of the raw body>`. A push is only a hint: the port's workflow is
signalled to ask the carrier now (its next poll, not the pushed status, is what is recorded), so a replayed
push costs one poll and changes nothing. Polling stays on as the fallback, at LINEUP_PORT_PUSH_FALLBACK_SECONDS."""

from __future__ import annotations

import hashlib
import hmac
import logging

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from temporalio.service import RPCError, RPCStatusCode

from dispatch.context import Resources
from models.tables.porting import PortIn
from workflows.ids import port_workflow_id
from workflows.porting import CARRIER_PUSHED

log = logging.getLogger("lineup.port_push")
SIGNATURE_HEADER = "x-carrier-signature"


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


def signature(secret: str, body: bytes) -> str:
    """What the carrier sends (and the sandbox computes) in X-Carrier-Signature."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signed(secret: str, body: bytes, offered: str | None) -> bool:
    return bool(secret) and offered is not None and hmac.compare_digest(signature(secret, body), offered)


async def port_pushed(resources: Resources, body: bytes, offered: str | None) -> str:
    """Checks the signature before reading the body, the port against our records, then signals its workflow;
    the enrollment id answered. Raises PushRefused with the HTTP status to answer."""
    secret = resources.settings.porting.push_secret.get_secret_value()
    if not secret:
        raise PushRefused(404, "Port status pushes are not enabled")
    if not signed(secret, body, offered):
        raise PushRefused(401, "Invalid signature")
    try:
        push = PortPush.model_validate_json(body)
    except ValidationError:
        raise PushRefused(400, "Invalid port status push") from None
    async with resources.db.transaction() as session:
        order = await session.get(PortIn, push.enrollment_id)
    if order is None or order.carrier_port_id != push.port_id:
        raise PushRefused(404, "Port not found")
    client = resources.temporal.client()
    try:
        await client.get_workflow_handle(port_workflow_id(push.enrollment_id)).signal(CARRIER_PUSHED)
    except RPCError as problem:
        if problem.status == RPCStatusCode.NOT_FOUND:  # the port's workflow already ended
            raise PushRefused(404, "Port is no longer followed") from None
        raise
    log.info("port %s pushed as %s: its workflow asks the carrier now", push.enrollment_id, push.status or "?")
    return push.enrollment_id
