"""`/agent`: update_location_coordinate."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlmodel import select

from api.deps import SessionsDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from api.login import open_login_entry
from models.db import transaction
from models.envelope import Envelope
from models.requests.agent import AgentAction, UpdateLocationCoordinate
from models.tables.agent import Agent, AgentLocation

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
