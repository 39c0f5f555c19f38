"""The agents domain's actions, what agents do: report where they are, save and check signatures, add notes to a
customer's account, list a customer's saved cards (behind the customer's own login: the line's e-mail and
password), and change their own password (three proof images; a generated password is e-mailed to the agent)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import date, timedelta
from html import escape

from sqlalchemy import bindparam, insert, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, func, select

from api.access import INVALID_PASSWORD, VOICE_SOURCES, verify_agent_secret
from api.dispatch import Context, Reply, action
from api.enrollment import verify_line_password
from api.mail import Message, deliver, outbox_row
from models import auth
from models.agents import (
    NOTE_ADDED,
    PROOF_KINDS,
    SAVED_CARD,
    SIGNATURE_SAVED,
    AddNotes,
    AgentChangePassword,
    CheckSignature,
    Note,
    NoteAdded,
    PasswordChange,
    ProofBlob,
    ProofImageRow,
    SavedCard,
    SavedCardList,
    SaveSignature,
    Signature,
    SignatureSaved,
    UpdateLocationCoordinate,
)
from models.auth import PRIVILEGED, Agent, AgentRef, ApiUser, CustomerLogin, Throttle
from models.crypto import Fields, hash_secret_async
from models.db import Session, insert_once, insert_or_skip, row_for_key, table
from models.enrollment.lines import Enrollment, Line, email_hash, vendor_line
from models.envelope import LineupError, MsgCode, invalid_enrollment_id, refuse
from models.mail import MailOutbox, MailStatus
from models.payment import SavedCard as SavedCardRow
from models.types import malformed, utcnow

NOT_OWN_LOCATION = "Username must be the agent_id's own: an agent records only its own location"
NO_SUCH_CUSTOMER = "Customer Id and Enrollment Id do not name an existing customer"
INVALID_PAIR = "Invalid username or password"
NEEDS_CURRENT = (
    "Changing the password of an agent with the support or admin role needs that agent's current password in "
    "agent_password"
)
CHANGED = "Password changed; the new password has been e-mailed to the agent"
# The relay is down: the e-mail goes out, once, when it is back (as `send` answers "Mail queued for delivery").
QUEUED = "Password changed; the e-mail with the new password is queued for delivery to the agent"

# Core statements built once: agents report their location often, and the rows are never read back here.
_RECORD_LOCATION = insert(table("agent_location"))
_LOGINS = table("login_log")
_PLACE_LOGIN = (
    update(_LOGINS)
    .where(_LOGINS.c.id == bindparam("entry_id"))
    .values(latitude=bindparam("at_latitude"), longitude=bindparam("at_longitude"))
)


@action("agent", interface=True)
async def update_location_coordinate(*, body: UpdateLocationCoordinate, ctx: Context) -> None:
    """Records where an agent is, against the session's login-log entry when its OTP is given."""
    subject_id = await _subject(ctx, body.username)
    entry_id = await _login_entry(ctx, body.login_log_otp) if body.login_log_otp is not None else None
    transaction = await ctx.uow.session()
    if entry_id is not None:
        place = {"entry_id": entry_id, "at_latitude": body.latitude, "at_longitude": body.longitude}
        await transaction.run(_PLACE_LOGIN, place)
    row: dict[str, object] = {"agent_id": subject_id, "reported_by": subject_id, "login_log_id": entry_id}
    row |= {"vendor_id": ctx.caller.vendor_id, "latitude": body.latitude, "longitude": body.longitude}
    await transaction.run(_RECORD_LOCATION, row | {"ip_address": body.ip_address, "recorded_at": utcnow()})


@action("agent", example=SIGNATURE_SAVED)
async def save_signature(*, body: SaveSignature, ctx: Context) -> SignatureSaved:
    """Stores the acting agent's signature image, optionally for one enrollment; a repeated request answers the
    first one's id."""
    caller = ctx.caller
    assert caller.agent is not None  # the action requires an agent
    key = caller.request_key(body.external_transaction_id)
    signature = Signature(
        idempotency_key=key,
        vendor_id=caller.vendor_id,
        agent_id=caller.agent.id,
        enrollment_id=body.enroll_id,
        media_type=body.signature.media_type,
        sha256=hashlib.sha256(body.signature.content).hexdigest(),
        image=body.signature.content,
    )

    async def build(session: Session) -> Signature:
        if body.enroll_id is not None:
            slot = await session.get(Enrollment, body.enroll_id)
            if slot is None or slot.vendor_id != caller.vendor_id:
                raise refuse(invalid_enrollment_id(body.enroll_id))
        return signature

    return SignatureSaved(signature_id=str(await insert_once(ctx.uow, Signature, key, build)))


@action("agent", interface=True, reads_only=True)
async def check_signature(*, body: CheckSignature, ctx: Context) -> Reply[None]:
    """Confirms a signature is on file under one of the vendor's open login-log entries: the named one (for
    enroll_id, when given), or without signature_id the acting agent's."""
    caller = ctx.caller
    assert caller.agent is not None
    query = select(Signature.id).where(Signature.vendor_id == caller.vendor_id)
    if body.signature_id is not None:
        query = query.where(Signature.id == int(body.signature_id))
    else:
        query = query.where(Signature.agent_id == caller.agent.id)
    if body.enroll_id is not None:
        query = query.where(Signature.enrollment_id == body.enroll_id)
    await _login_entry(ctx, body.login_log_otp)
    async with ctx.uow.transaction() as session:
        if (await session.exec(query.limit(1))).first() is None:
            raise refuse("Signature not found", rest_status=404)
    return Reply("Signature verified", None)


@action("notes", interface=True, agent_required=False, example=NOTE_ADDED)
async def add_notes(*, body: AddNotes, ctx: Context) -> NoteAdded:
    """Adds a note to the customer that customer_id and enrollment_id both name; the author is the agent when
    one was named, else the token's API user. A repeated request answers the first note's id."""
    caller = ctx.caller
    key = caller.request_key(body.external_transaction_id)

    async def build(session: Session) -> Note:
        # Another vendor's customer is refused in the same words as one that does not exist.
        line = await vendor_line(session, body.enrollment_id, vendor_id=caller.vendor_id)
        if line is None or line.customer_id is None or line.customer_id != body.customer_id:
            raise refuse(NO_SUCH_CUSTOMER, rest_status=404)
        return Note(
            idempotency_key=key,
            vendor_id=caller.vendor_id,
            enrollment_id=line.enrollment_id,
            customer_id=line.customer_id,
            text=ctx.cipher.encrypt(body.customer_notes),
            latitude=body.coordinate.latitude,
            longitude=body.coordinate.longitude,
            is_activity=body.is_activity == "1",
            activity_type=body.activity_type,
            agent_id=caller.agent.id if caller.agent else None,
            api_user_id=caller.api_user_id,
        )

    return NoteAdded(notes_id=str(await insert_once(ctx.uow, Note, key, build)))


@action("cards", interface=True, agent_required=False, example=[SAVED_CARD])
async def saved_card_list(*, body: SavedCardList, ctx: Context) -> list[SavedCard]:
    """A customer's saved cards (make_payment saved them), masked, oldest (the primary) first; card_id
    restricts the list to that card. The customer logs in with the line's e-mail and password."""
    caller = ctx.caller
    if body.vendor_id is not None and body.vendor_id.upper() != caller.vendor_code:
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    line = await _customer_login(ctx, enrollment_id=body.enrollment_id, email=body.username, password=body.password)
    query = (
        select(SavedCardRow)
        .where(SavedCardRow.enrollment_id == line.enrollment_id, SavedCardRow.vendor_id == caller.vendor_id)
        .order_by(col(SavedCardRow.id))
    )
    async with ctx.uow.transaction() as session:
        saved = list((await session.exec(query)).all())
    today = date.today()
    return [
        SavedCard.of(card, ctx.cipher.open(card.holder, Fields), primary=index == 0, today=today)
        for index, card in enumerate(saved)
        if body.card_id is None or card.id == int(body.card_id)
    ]


@action("auth", interface=True, sources=VOICE_SOURCES, large_body=True, msg=CHANGED)
async def agent_change_password(*, body: AgentChangePassword, ctx: Context) -> Reply[None]:
    """Stores the three proof images and where the agent is, sets a generated password on the agent (and on its
    API user of the same name), ends that user's other tokens and e-mails the password through the outbox. A
    repeat changes nothing again."""
    agent = ctx.caller.agent
    assert agent is not None  # the action requires an agent
    if not agent.email:
        raise refuse(f"Agent {agent.username} has no e-mail address on file; ask an administrator to add one")
    await _check_privileged_change(ctx, agent, body.agent_password)
    key = ctx.caller.request_key(body.external_transaction_id)
    if key and (repeated := await _repeat(ctx, key, agent)) is not None:
        return Reply(repeated, None)
    # The token claim commits first (the change revokes the caller's other tokens). No gate on Temporal: the e-mail
    # is committed to the outbox with the change, and the sweep delivers it should Temporal be away ("queued").
    await ctx.uow.commit_before_wait()
    try:
        outbox = await _change(ctx, body, agent, key)
    except IntegrityError:  # the same request twice at once: the one that won made the change
        assert key is not None
        return Reply(await _repeat(ctx, key) or CHANGED, None)
    return Reply(await _mailed(outbox, ctx), None)


async def _subject(ctx: Context, username: str) -> int:
    """The acting agent's id: an agent reports where it is itself, never where another agent is (a location
    recorded for someone else would be a false record of where that agent worked)."""
    caller = ctx.caller
    if caller.agent is None or caller.agent.username != username:
        raise refuse(NOT_OWN_LOCATION, rest_status=403)
    return caller.agent.id


async def _login_entry(ctx: Context, otp: str) -> int:
    """The id of the vendor's open login-log entry with this OTP. Wrong OTPs are throttled per API user, so the
    guess is counted in a transaction of its own that commits whatever this request comes to."""
    await ctx.uow.commit_before_wait()
    caller, otp_hash = ctx.caller, auth.otp_digest(ctx.cipher, otp)
    return await auth.login_entry(
        ctx.uow, ctx.settings.auth, vendor_id=caller.vendor_id, api_user_id=caller.api_user_id, otp_hash=otp_hash
    )


async def _customer_login(ctx: Context, *, enrollment_id: str, email: str, password: str) -> Line:
    """The vendor's line when the e-mail and password are its own, else `Invalid username or password`. The
    attempt is counted in transactions of their own, committed whatever this request comes to."""
    async with ctx.uow.transaction() as session:
        # Another vendor's customer answers as an unknown one.
        line = await vendor_line(session, enrollment_id, vendor_id=ctx.caller.vendor_id)
    await ctx.uow.commit_before_wait()  # argon2 and the throttle's waits hold neither a connection nor a lock
    throttle, row = Throttle.of(ctx.settings), col(CustomerLogin.enrollment_id) == enrollment_id
    # Claimed before the password is verified: parallel guesses cannot outrun the lockout. The first makes the row.
    first = {"enrollment_id": enrollment_id}
    if line is not None and not await auth.claim_login(ctx.uow, CustomerLogin, row, throttle, first=first):
        raise refuse(auth.LOCKED, rest_status=429)
    # Always verified: an unknown line or a wrong e-mail costs as much time as a wrong password.
    email_ok = line is not None and hmac.compare_digest(line.email_hash, email_hash(ctx.cipher, email))
    password_ok = await verify_line_password(ctx.resources.db, ctx.cipher, line, password)
    if line is not None:
        await auth.settle_login(ctx.uow, CustomerLogin, row, throttle, ok=email_ok and password_ok)
    if line is None or not (email_ok and password_ok):
        raise refuse(INVALID_PAIR, rest_status=401)
    return line


async def _check_privileged_change(ctx: Context, agent: AgentRef, offered: str | None) -> None:
    """Refuses (RESTAPI104, saying why) a change of a support or admin agent's password without its current one."""
    if not agent.roles & PRIVILEGED or agent.requires_api_password:
        return  # not privileged, or its API password was the request's agent_password, checked already
    if offered is None or malformed(offered):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [NEEDS_CURRENT])
    async with ctx.uow.transaction() as session:
        stored = await session.get(Agent, agent.id)
    assert stored is not None  # the token's read found it
    if not await verify_agent_secret(ctx.uow, ctx.settings, agent.id, stored.password_hash, offered):
        raise LineupError(MsgCode.AGENT, INVALID_PASSWORD, [NEEDS_CURRENT])


async def _change(ctx: Context, body: AgentChangePassword, agent: AgentRef, key: str | None) -> MailOutbox:
    """A new password on the agent and its API user (hashed first, then one transaction), the proofs, the outbox row."""
    assert agent.email is not None
    password = secrets.token_urlsafe(15)  # 20 characters, 120 random bits
    hashed = await hash_secret_async(password)
    latitude, longitude = body.location()
    most = ctx.settings.auth.password_changes_per_day
    async with ctx.uow.transaction() as session:
        # Locked (PostgreSQL) so that one agent's concurrent changes are counted one after the other.
        stored = await session.get(Agent, agent.id, with_for_update=True)
        assert stored is not None  # the gate just read it
        # Each change stores three proofs and mails a password: an agent gets `most` of them in 24 hours.
        since = utcnow() - timedelta(days=1)
        recent = select(func.count()).where(PasswordChange.agent_id == agent.id, PasswordChange.changed_at > since)
        if (await session.exec(recent)).one() >= most:
            raise refuse(f"At most {most} password changes a day for one agent; try again later", rest_status=429)
        stored.password_hash, stored.password_changed_at = hashed, utcnow()
        session.add(stored)
        await _change_api_user(ctx, session, stored, hashed)
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
            digest = hashlib.sha256(proof.content).hexdigest()
            # Its bytes stored once: an image already kept (sent again, by anyone, or by a concurrent change) is not.
            blob = {"sha256": digest, "media_type": proof.media_type, "image": proof.content, "created_at": utcnow()}
            await insert_or_skip(session, ProofBlob, blob)
            session.add(
                ProofImageRow(password_change_id=change.id, kind=kind, media_type=proof.media_type, sha256=digest)
            )
        html, to = _message(agent.username, password, change), [(agent.username, agent.email)]
        outbox = outbox_row(
            f"{ctx.caller.vendor_code}-password-{change.id}",
            Message("Lineup", ctx.settings.mail.sender, "Your new Lineup password", html, to),
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


async def _change_api_user(ctx: Context, session: Session, agent: Agent, hashed: str) -> None:
    """An agent created with a PIN logs in at /authenticate as the API user of its name and vendor: its other
    sessions end (tokens revoked, login-log OTPs closed); this one (this answer's token, its OTP) goes on."""
    query = select(ApiUser).where(ApiUser.vendor_id == agent.vendor_id, ApiUser.username == agent.username)
    user = (await session.exec(query)).first()
    if user is None:
        return
    assert user.id is not None
    user.password_hash = hashed
    user.login_hash = None  # it held the old password; the next right login makes it anew (PIN unknown here)
    session.add(user)
    await auth.revoke(session, user.id, keep=ctx.fresh_token)
    await auth.close_login_entries(session, api_user_id=user.id, keep=ctx.caller.login_log_id)


def _message(username: str, password: str, change: PasswordChange) -> str:
    when = change.changed_at.strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"<p>Hello {escape(username)},</p><p>Your Lineup agent password was changed on {when}. "
        f"Your new password is:</p><p><strong>{escape(password)}</strong></p>"
        "<p>It replaces the old one at once. If you did not ask for this change, tell your administrator.</p>"
    )


async def _repeat(ctx: Context, key: str, agent: AgentRef | None = None) -> str | None:
    """A repeated request (None when there was no first): the first change's e-mail is delivered (started if it never
    was), nothing else; refused when `agent` is given and the first change was another agent's."""
    async with ctx.uow.transaction() as session:
        done = await row_for_key(session, PasswordChange, key)
        outbox = await session.get(MailOutbox, done.mail_outbox_id) if done and done.mail_outbox_id else None
    if done is None:
        return None
    if agent is not None and done.agent_id != agent.id:
        raise refuse("External transaction id was already used for another agent", rest_status=409)
    return CHANGED if outbox is None else await _mailed(outbox, ctx)


async def _mailed(outbox: MailOutbox, ctx: Context) -> str:
    """What the answer says of the e-mail: sent, queued while the relay is down, or refused for good."""
    status = await deliver(outbox, ctx)
    if status == MailStatus.REJECTED:
        raise refuse(f"Password changed, but the mail relay refused the e-mail with it: {outbox.last_error}")
    return CHANGED if status == MailStatus.SENT else QUEUED
