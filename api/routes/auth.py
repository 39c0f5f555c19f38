"""`/auth`: agent_change_password."""

from __future__ import annotations

import hashlib
import secrets
from html import escape
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from api import tokens
from api.deps import LinesDep, SessionsDep, SettingsDep, TemporalDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from api.idempotency import request_key
from api.routes.mail import outbox_message, start_delivery
from models.db import transaction, utcnow
from models.envelope import Envelope
from models.passwords import hash_secret_async
from models.requests.auth import AgentChangePassword, AuthAction
from models.tables.agent import Agent
from models.tables.mail import MailOutbox
from models.tables.proofs import PROOF_KINDS, PasswordChange, ProofImage
from models.tables.vendor import ApiUser

router = APIRouter(tags=["auth"])
AuthBody = Annotated[AuthAction, Body(discriminator="action")]
AuthCaller = Annotated[Caller, Depends(gate("auth"))]
CHANGED = "Password changed; the new password has been e-mailed to the agent"


@router.post("/auth", response_model=Envelope)
async def auth(
    request: Request, body: AuthBody, caller: AuthCaller, sessions: SessionsDep, settings: SettingsDep,
    lines: LinesDep, temporal: TemporalDep,
) -> JSONResponse:  # fmt: skip
    """Agent credentials."""
    match body:
        case AgentChangePassword():
            keep = request.state.fresh_token  # this response's token survives the revocation
            await agent_change_password(body, caller, keep, sessions, settings, lines, temporal)
            return success(request, msg=CHANGED)


async def agent_change_password(
    body: AgentChangePassword, caller: Caller, keep_token: str, sessions: SessionsDep, settings: SettingsDep,
    lines: LinesDep, temporal: TemporalDep,
) -> None:  # fmt: skip
    """Stores the proofs, sets a generated password on the agent (and on its API user of the same name), ends
    that user's other tokens and e-mails the password through the outbox. A repeat changes nothing again."""
    agent = caller.agent
    assert agent is not None and agent.id is not None  # the action requires an agent
    if not agent.email:
        raise refuse(f"Agent {agent.username} has no e-mail address on file; ask an administrator to add one")
    key = request_key(caller, body.external_transaction_id)
    if key and (done := await _change_by_key(sessions, key)):
        if done.agent_id != agent.id:
            raise refuse("External transaction id was already used for another agent", rest_status=409)
        await _redeliver(done, sessions, settings, temporal)
        return
    temporal.require()  # the new password must be e-mailable before the old one is dropped
    password = secrets.token_urlsafe(15)  # 20 characters, 120 random bits
    hashed = await hash_secret_async(password)
    try:
        outbox = await _change(
            body, caller, agent, key, password, hashed, keep_token, sessions, settings, lines
        )
    except IntegrityError:  # the same request twice at once: the one that won made the change
        assert key is not None
        if (done := await _change_by_key(sessions, key)) is not None:
            await _redeliver(done, sessions, settings, temporal)
        return
    await start_delivery(outbox, settings, temporal)


async def _change(
    body: AgentChangePassword, caller: Caller, agent: Agent, key: str | None, password: str, hashed: str,
    keep_token: str, sessions: SessionsDep, settings: SettingsDep, lines: LinesDep,
) -> MailOutbox:  # fmt: skip
    """One transaction: new password on the agent and its API user, other tokens ended, proofs, outbox row."""
    assert agent.email is not None and agent.id is not None
    latitude, longitude = body.location()
    async with transaction(sessions) as session:
        stored = await session.get(Agent, agent.id)
        assert stored is not None  # the gate just read it
        stored.password_hash, stored.password_changed_at = hashed, utcnow()
        session.add(stored)
        await _change_api_user(session, stored, hashed, keep_token)
        change = PasswordChange(
            idempotency_key=key, vendor_id=caller.vendor_id, agent_id=agent.id,
            api_user_id=caller.api_user_id, latitude=latitude, longitude=longitude, changed_at=stored.password_changed_at,
        )  # fmt: skip
        session.add(change)
        await session.flush()
        assert change.id is not None
        for kind in PROOF_KINDS:
            proof = getattr(body, kind)
            session.add(
                ProofImage(
                    password_change_id=change.id, kind=kind, media_type=proof.media_type,
                    sha256=hashlib.sha256(proof.content).hexdigest(), image=proof.content,
                )
            )  # fmt: skip
        outbox = outbox_message(
            key=f"{caller.vendor_code}-password-{change.id}", vendor_id=caller.vendor_id,
            agent_username=agent.username,
            subject="Your new Lineup password", html=_message(agent.username, password, change),
            recipients=[(agent.username, agent.email)], settings=settings, cipher=lines.cipher,
        )  # fmt: skip
        session.add(outbox)
        await session.flush()
        change.mail_outbox_id = outbox.id
        session.add(change)
    return outbox


async def _change_api_user(session: AsyncSession, agent: Agent, hashed: str, keep_token: str) -> None:
    """An agent created with a PIN logs in at /authenticate as the API user of the same name and vendor."""
    query = select(ApiUser).where(ApiUser.vendor_id == agent.vendor_id, ApiUser.username == agent.username)
    user = (await session.exec(query)).first()
    if user is None:
        return
    assert user.id is not None
    user.password_hash = hashed
    session.add(user)
    await tokens.revoke(session, user.id, keep=keep_token)


def _message(username: str, password: str, change: PasswordChange) -> str:
    when = change.changed_at.strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"<p>Hello {escape(username)},</p><p>Your Lineup agent password was changed on {when}. "
        f"Your new password is:</p><p><strong>{escape(password)}</strong></p>"
        "<p>It replaces the old one at once. If you did not ask for this change, tell your administrator.</p>"
    )


async def _change_by_key(sessions: SessionsDep, key: str) -> PasswordChange | None:
    async with sessions() as session:
        return (
            await session.exec(select(PasswordChange).where(PasswordChange.idempotency_key == key))
        ).first()


async def _redeliver(
    change: PasswordChange, sessions: SessionsDep, settings: SettingsDep, temporal: TemporalDep
) -> None:
    """A repeated request: the first change's e-mail is delivered (started if it never was); nothing else."""
    async with sessions() as session:
        outbox = await session.get(MailOutbox, change.mail_outbox_id) if change.mail_outbox_id else None
    if outbox is not None:
        await start_delivery(outbox, settings, temporal)
