"""The auth domain's agent_change_password: three proof images and where the agent is; a new password is
generated, set and e-mailed to the agent."""

from __future__ import annotations

import hashlib
import secrets
from html import escape

from sqlalchemy.exc import IntegrityError
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.clock import utcnow
from models.errors import refuse
from models.passwords import hash_secret_async
from models.requests.auth import AgentChangePassword
from models.statuses import MailStatus
from models.tables.agents import Agent
from models.tables.auth import PROOF_KINDS, ApiUser, PasswordChange, ProofImage
from models.tables.mail import MailOutbox
from persistence.agents import AgentRef
from persistence.auth import tokens
from persistence.auth.logins import close_login_entries
from persistence.idempotency import row_for_key
from services.actions import VOICE_SOURCES, action
from services.context import Context, Reply
from services.mail import Message, deliver, outbox_row

CHANGED = "Password changed; the new password has been e-mailed to the agent"
# The relay is down: the e-mail goes out, once, when it is back (as `send` answers "Mail queued for delivery").
QUEUED = "Password changed; the e-mail with the new password is queued for delivery to the agent"


@action("auth", sources=VOICE_SOURCES, msg=CHANGED)
async def agent_change_password(*, body: AgentChangePassword, ctx: Context) -> Reply[None]:
    """Stores the three proof images and where the agent is, sets a generated password on the agent (and on its
    API user of the same name), ends that user's other tokens and e-mails the password through the outbox. A
    repeat changes nothing again."""
    agent = ctx.caller.agent
    assert agent is not None  # the action requires an agent
    if not agent.email:
        raise refuse(f"Agent {agent.username} has no e-mail address on file; ask an administrator to add one")
    key = ctx.caller.request_key(body.external_transaction_id)
    if key and (done := await _change_by_key(ctx, key)):
        if done.agent_id != agent.id:
            raise refuse("External transaction id was already used for another agent", rest_status=409)
        return Reply(await _redeliver(done, ctx), None)
    await ctx.temporal_client()  # the new password must be e-mailable before the old one is dropped
    password = secrets.token_urlsafe(15)  # 20 characters, 120 random bits
    try:
        outbox = await _change(ctx, body, agent, key, password, await hash_secret_async(password))
    except IntegrityError:  # the same request twice at once: the one that won made the change
        assert key is not None
        if (done := await _change_by_key(ctx, key)) is None:
            return Reply(CHANGED, None)
        return Reply(await _redeliver(done, ctx), None)
    return Reply(await _mailed(outbox, ctx), None)


async def _change(
    ctx: Context, body: AgentChangePassword, agent: AgentRef, key: str | None, password: str, hashed: str
) -> MailOutbox:
    """One transaction: new password on the agent and its API user, other tokens ended, proofs, outbox row."""
    assert agent.email is not None
    latitude, longitude = body.location()
    async with ctx.uow.transaction() as session:
        stored = await session.get(Agent, agent.id)
        assert stored is not None  # the gate just read it
        stored.password_hash, stored.password_changed_at = hashed, utcnow()
        session.add(stored)
        await _change_api_user(session, stored, hashed, ctx.fresh_token, ctx.caller.login_log_id)
        change = PasswordChange(
            idempotency_key=key, vendor_id=ctx.caller.vendor_id, agent_id=agent.id, api_user_id=ctx.caller.api_user_id,
            latitude=latitude, longitude=longitude, changed_at=stored.password_changed_at,
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
        message = Message(
            "Lineup", ctx.settings.mail.sender, "Your new Lineup password", _message(agent.username, password, change),
            [(agent.username, agent.email)],
        )  # fmt: skip
        outbox = outbox_row(
            f"{ctx.caller.vendor_code}-password-{change.id}", message, vendor_id=ctx.caller.vendor_id,
            agent_username=agent.username, settings=ctx.settings, cipher=ctx.cipher,
        )  # fmt: skip
        session.add(outbox)
        await session.flush()
        change.mail_outbox_id = outbox.id
        session.add(change)
    return outbox


async def _change_api_user(
    session: AsyncSession, agent: Agent, hashed: str, keep_token: str | None, keep_entry: int | None
) -> None:
    """An agent created with a PIN logs in at /authenticate as the API user of the same name and vendor;
    its other sessions end: their tokens are revoked and their login-log OTPs closed. This session (this
    answer's token, its OTP) goes on."""
    query = select(ApiUser).where(ApiUser.vendor_id == agent.vendor_id, ApiUser.username == agent.username)
    user = (await session.exec(query)).first()
    if user is None:
        return
    assert user.id is not None
    user.password_hash = hashed
    session.add(user)
    await tokens.revoke(session, user.id, keep=keep_token)
    await close_login_entries(session, api_user_id=user.id, keep=keep_entry)


def _message(username: str, password: str, change: PasswordChange) -> str:
    when = change.changed_at.strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"<p>Hello {escape(username)},</p><p>Your Lineup agent password was changed on {when}. "
        f"Your new password is:</p><p><strong>{escape(password)}</strong></p>"
        "<p>It replaces the old one at once. If you did not ask for this change, tell your administrator.</p>"
    )


async def _change_by_key(ctx: Context, key: str) -> PasswordChange | None:
    async with ctx.uow.transaction() as session:
        found: PasswordChange | None = await row_for_key(session, PasswordChange, key)
        return found


async def _redeliver(change: PasswordChange, ctx: Context) -> str:
    """A repeated request: the first change's e-mail is delivered (started if it never was); nothing else."""
    async with ctx.uow.transaction() as session:
        outbox = await session.get(MailOutbox, change.mail_outbox_id) if change.mail_outbox_id else None
    return CHANGED if outbox is None else await _mailed(outbox, ctx)


async def _mailed(outbox: MailOutbox, ctx: Context) -> str:
    """What the answer says of the e-mail: sent, queued while the relay is down, or refused for good."""
    status = await deliver(outbox, ctx)
    if status == MailStatus.REJECTED:
        raise refuse(f"Password changed, but the mail relay refused the e-mail with it: {outbox.last_error}")
    return CHANGED if status == MailStatus.SENT else QUEUED
