"""`/agent`: update_location_coordinate, check_signature and save_signature."""

from __future__ import annotations

import hashlib
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from api.deps import SessionsDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from api.idempotency import id_for_key, request_key
from api.login import open_login_entry
from models.db import transaction
from models.envelope import Envelope
from models.requests.agent import AgentAction, CheckSignature, SaveSignature, UpdateLocationCoordinate
from models.tables.agent import Agent, AgentLocation
from models.tables.enrollment import Enrollment
from models.tables.signature import Signature

router = APIRouter(tags=["agent"])
AgentBody = Annotated[AgentAction, Body(discriminator="action")]
AgentCaller = Annotated[Caller, Depends(gate("agent"))]


@router.post("/agent", response_model=Envelope)
async def agent(request: Request, body: AgentBody, caller: AgentCaller, sessions: SessionsDep) -> JSONResponse:
    """Agent location and signature operations."""
    match body:
        case UpdateLocationCoordinate():
            await update_location_coordinate(body, caller, sessions)
            return success(request)
        case SaveSignature():
            return success(request, await save_signature(body, caller, sessions))
        case CheckSignature():
            await check_signature(body, caller, sessions)
            return success(request, msg="Signature verified")


async def update_location_coordinate(body: UpdateLocationCoordinate, caller: Caller, sessions: SessionsDep) -> None:
    """Stores the agent's location, against the session's login-log entry when its OTP is given."""
    async with transaction(sessions) as session:
        subject = (
            await session.exec(select(Agent).where(Agent.username == body.username, Agent.vendor_id == caller.vendor_id))
        ).first()
        if subject is None or not subject.active:
            raise refuse("Username is not an active agent of this vendor")
        entry = None
        if body.login_log_otp is not None:
            entry = await open_login_entry(session, caller.vendor_id, body.login_log_otp)
            entry.latitude, entry.longitude = body.latitude, body.longitude
        assert subject.id is not None
        reporter = caller.agent.id if caller.agent and caller.agent.id else subject.id
        session.add(
            AgentLocation(
                agent_id=subject.id,
                vendor_id=caller.vendor_id,
                latitude=body.latitude,
                longitude=body.longitude,
                ip_address=body.ip_address,
                login_log_id=entry.id if entry else None,
                reported_by=reporter,
            )
        )


async def save_signature(body: SaveSignature, caller: Caller, sessions: SessionsDep) -> dict[str, str]:
    """Stores the acting agent's signature (for the enrollment, when named); a repeated request answers the
    first one's id."""
    assert caller.agent is not None and caller.agent.id is not None  # the action requires an agent
    key = request_key(caller, body.external_transaction_id)
    if key and (done := await id_for_key(sessions, Signature, key)):
        return {"signature_id": str(done)}
    signature = Signature(
        idempotency_key=key, vendor_id=caller.vendor_id, agent_id=caller.agent.id,
        enrollment_id=body.enroll_id, media_type=body.signature.media_type, sha256=hashlib.sha256(body.signature.content).hexdigest(),
        image=body.signature.content,
    )  # fmt: skip
    try:
        async with transaction(sessions) as session:
            if body.enroll_id is not None:
                slot = await session.get(Enrollment, body.enroll_id)
                if slot is None or slot.vendor_id != caller.vendor_id:
                    raise refuse(
                        f"Invalid enrollment id {body.enroll_id}. Please provide a valid enrollment ID."
                    )
            session.add(signature)
            await session.flush()
            signature_id = signature.id
    except IntegrityError:  # the same request twice at once: the one that won answers
        assert key is not None
        signature_id = await id_for_key(sessions, Signature, key)
    return {"signature_id": str(signature_id)}



async def check_signature(body: CheckSignature, caller: Caller, sessions: SessionsDep) -> None:
    """Under an open login-log entry of the vendor: the named signature exists (for enroll_id, when given), or
    without signature_id the acting agent has one on file."""
    assert caller.agent is not None and caller.agent.id is not None
    async with sessions() as session:
        await open_login_entry(session, caller.vendor_id, body.login_log_otp)
        query = select(Signature.id).where(Signature.vendor_id == caller.vendor_id)
        if body.signature_id is not None:
            query = query.where(Signature.id == int(body.signature_id))
        else:
            query = query.where(Signature.agent_id == caller.agent.id)
        if body.enroll_id is not None:
            query = query.where(Signature.enrollment_id == body.enroll_id)
        if (await session.exec(query.limit(1))).first() is None:
            raise refuse("Signature not found", rest_status=404)
