"""The agents domain: update_location_coordinate, save_signature and check_signature."""

from __future__ import annotations

import hashlib

from sqlalchemy import bindparam, insert, update
from sqlmodel import select

from dispatch.actions import action
from dispatch.context import Context, Reply
from models.answers.agents import SIGNATURE_SAVED, SignatureSaved
from models.clock import utcnow
from models.errors import refuse
from models.refusals import invalid_enrollment_id
from models.requests.agents import CheckSignature, SaveSignature, UpdateLocationCoordinate
from models.tables.agents import Signature
from models.tables.enrollment import Enrollment
from persistence.auth.logins import OtpPolicy, check_otp, otp_digest
from persistence.core import table
from persistence.idempotency import insert_once
from persistence.transaction import DbSession

INVALID_OTP = "Please provide valid otp"
TOO_MANY_OTPS = "Too many wrong OTPs; try again later"
NOT_OWN_LOCATION = "Username must be the agent_id's own: an agent records only its own location"
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
    caller = ctx.caller
    subject_id = await _subject(ctx, body.username)
    entry_id = await _login_entry(ctx, body.login_log_otp) if body.login_log_otp is not None else None
    transaction = await ctx.uow.transaction_now()
    if entry_id is not None:
        place = {"entry_id": entry_id, "at_latitude": body.latitude, "at_longitude": body.longitude}
        await transaction.run(_PLACE_LOGIN, place)
    await transaction.run(
        _RECORD_LOCATION,
        {
            "agent_id": subject_id,
            "vendor_id": caller.vendor_id,
            "latitude": body.latitude,
            "longitude": body.longitude,
            "ip_address": body.ip_address,
            "login_log_id": entry_id,
            "reported_by": subject_id,
            "recorded_at": utcnow(),
        },
    )


async def _subject(ctx: Context, username: str) -> int:
    """The acting agent's id: an agent reports where it is itself, never where another agent is (a location
    recorded for someone else would be a false record of where that agent worked)."""
    caller = ctx.caller
    if caller.agent is None or caller.agent.username != username:
        raise refuse(NOT_OWN_LOCATION, rest_status=403)
    return caller.agent.id


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

    async def build(session: DbSession) -> Signature:
        if body.enroll_id is not None:
            slot = await session.get(Enrollment, body.enroll_id)
            if slot is None or slot.vendor_id != caller.vendor_id:
                raise refuse(invalid_enrollment_id(body.enroll_id))
        return signature

    return SignatureSaved(signature_id=str(await insert_once(ctx.uow, Signature, key, build)))


@action("agent", interface=True)
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


async def _login_entry(ctx: Context, otp: str) -> int:
    """The id of the vendor's open login-log entry with this OTP. Wrong OTPs are throttled per API user, so the
    guess is counted in a transaction of its own that commits whatever this request comes to."""
    await ctx.uow.commit_before_wait()
    check = await check_otp(
        ctx.uow,
        vendor_id=ctx.caller.vendor_id,
        api_user_id=ctx.caller.api_user_id,
        otp_hash=otp_digest(ctx.cipher, otp),
        policy=OtpPolicy.of(ctx.settings),
    )
    if check.throttled:
        raise refuse(TOO_MANY_OTPS, rest_status=429)
    if check.entry_id is None:
        raise refuse(INVALID_OTP)
    return check.entry_id
