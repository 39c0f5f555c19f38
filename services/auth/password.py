"""The auth domain's agent_change_password: three proof images and where the agent is; a new password is
generated, set and e-mailed to the agent."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from html import escape

from sqlalchemy.exc import IntegrityError
from sqlmodel import func, select

from dispatch.actions import VOICE_SOURCES, action
from dispatch.context import Context, Reply
from models.clock import utcnow
from models.errors import refuse
from models.images import Image
from models.passwords import hash_secret_async
from models.requests.auth import AgentChangePassword
from models.statuses import MailStatus
from models.tables.agents import Agent
from models.tables.auth import PROOF_KINDS, ApiUser, PasswordChange, ProofBlob, ProofImage
from models.tables.mail import MailOutbox
from persistence.agents import AgentRef
from persistence.auth import tokens
from persistence.auth.logins import close_login_entries
from persistence.core import insert_or_skip
from persistence.idempotency import row_for_key
from persistence.transaction import DbSession
from services.auth.guard import check_privileged_change
from services.mail import Message, deliver, outbox_row

CHANGED = "Password changed; the new password has been e-mailed to the agent"
# The relay is down: the e-mail goes out, once, when it is back (as `send` answers "Mail queued for delivery").
QUEUED = "Password changed; the e-mail with the new password is queued for delivery to the agent"


@action("auth", interface=True, sources=VOICE_SOURCES, large_body=True, msg=CHANGED)
async def agent_change_password(*, body: AgentChangePassword, ctx: Context) -> Reply[None]:
    """Stores the three proof images and where the agent is, sets a generated password on the agent (and on its
    API user of the same name), ends that user's other tokens and e-mails the password through the outbox. A
    repeat changes nothing again."""
    agent = ctx.caller.agent
    assert agent is not None  # the action requires an agent
    if not agent.email:
        raise refuse(f"Agent {agent.username} has no e-mail address on file; ask an administrator to add one")
    await check_privileged_change(ctx, agent, body.agent_password)
    key = ctx.caller.request_key(body.external_transaction_id)
    if key and (done := await _change_by_key(ctx, key)):
        if done.agent_id != agent.id:
            raise refuse("External transaction id was already used for another agent", rest_status=409)
        return Reply(await _redeliver(done, ctx), None)
    # The token claim commits first (the change below revokes the caller's other tokens). No gate on Temporal:
    # the e-mail is committed to the outbox with the change, and the sweep delivers it should Temporal be away
    # now (the answer then says "queued").
    await ctx.uow.commit_before_wait()
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
        # Locked (PostgreSQL) so that one agent's concurrent changes are counted one after the other.
        stored = await session.get(Agent, agent.id, with_for_update=True)
        assert stored is not None  # the gate just read it
        await _within_daily_limit(session, agent.id, ctx.settings.auth.password_changes_per_day)
        stored.password_hash, stored.password_changed_at = hashed, utcnow()
        session.add(stored)
        await _change_api_user(session, stored, hashed, ctx.fresh_token, ctx.caller.login_log_id)
        change = PasswordChange(
            idempotency_key=key,
            vendor_id=ctx.caller.vendor_id,
            agent_id=agent.id,
            api_user_id=ctx.caller.api_user_id,
            latitude=latitude,
            longitude=longitude,
            changed_at=stored.password_changed_at,
        )
        session.add(change)
        await session.flush()
        assert change.id is not None
        for kind in PROOF_KINDS:
            proof = getattr(body, kind)
            digest = await _keep_blob(session, proof)
            session.add(ProofImage(password_change_id=change.id, kind=kind, media_type=proof.media_type, sha256=digest))
        message = Message(
            "Lineup",
            ctx.settings.mail.sender,
            "Your new Lineup password",
            _message(agent.username, password, change),
            [(agent.username, agent.email)],
        )
        outbox = outbox_row(
            f"{ctx.caller.vendor_code}-password-{change.id}",
            message,
            vendor_id=ctx.caller.vendor_id,
            agent_username=agent.username,
            settings=ctx.settings,
            cipher=ctx.cipher,
        )
        session.add(outbox)
        await session.flush()
        change.mail_outbox_id = outbox.id
        session.add(change)
    return outbox


async def _change_api_user(
    session: DbSession, agent: Agent, hashed: str, keep_token: str | None, keep_entry: int | None
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
    user.login_hash = None  # it held the old password; the next right login makes it anew (PIN unknown here)
    session.add(user)
    await tokens.revoke(session, user.id, keep=keep_token)
    await close_login_entries(session, api_user_id=user.id, keep=keep_entry)


async def _within_daily_limit(session: DbSession, agent_id: int, most: int) -> None:
    """Each change stores three proofs and mails a password: an agent gets `most` of them in 24 hours."""
    since = utcnow() - timedelta(days=1)
    query = select(func.count()).select_from(PasswordChange)
    done = (
        await session.exec(query.where(PasswordChange.agent_id == agent_id, PasswordChange.changed_at > since))
    ).one()
    if done >= most:
        raise refuse(f"At most {most} password changes a day for one agent; try again later", rest_status=429)


async def _keep_blob(session: DbSession, proof: Image) -> str:
    """The proof's digest, its bytes stored once: an image already kept (sent again, by anyone) is not again."""
    digest = hashlib.sha256(proof.content).hexdigest()
    blob = {"sha256": digest, "media_type": proof.media_type, "image": proof.content, "created_at": utcnow()}
    await insert_or_skip(session, ProofBlob, blob)  # a concurrent change keeping the same image leaves one row
    return digest


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
