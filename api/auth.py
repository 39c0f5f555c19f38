"""The auth domain's requests: `POST /authenticate` checks an API user's credentials and opens the login-log entry
the session works under (its first token and OTP); `logout` ends it. Nothing costly happens before the caller is
known: the rates (api.access.LoginGates) first, then the user's lockout, then one argon2 in the bounded queue
(password and PIN hashed together; an unknown user costs the same against a dummy hash)."""

from __future__ import annotations

import secrets

from pydantic import ValidationError
from sqlalchemy import ColumnElement, and_, update
from sqlmodel import col
from starlette.requests import Request
from starlette.responses import Response

from api.access import ALL_SOURCES, THROTTLED, Busy
from api.dispatch import Context, Reply, Resources, action, read_object
from api.edge import describe_all, facts_of, render, render_refusal
from models import auth
from models.auth import ApiUser, AuthenticateRequest, LoginLog, Logout, Throttle, TokenOwner
from models.crypto import hash_secret_async, login_secret, verify_secret_async
from models.db import UnitOfWork
from models.envelope import Envelope, LineupError, MsgCode
from models.observability import login_refused

INVALID = "Invalid credentials!!"
LOGGED_OUT = "Logged out"


@action("auth", sources=ALL_SOURCES, source_required=False, agent_required=False, msg=LOGGED_OUT)
async def logout(*, body: Logout, ctx: Context) -> Reply[None]:
    """Ends the session the token belongs to: its login-log OTP closes and its tokens stop working, the one this
    answer carries included; the next call needs a new /authenticate. Needs nothing but the token."""
    if (entry_id := ctx.caller.login_log_id) is not None:
        async with ctx.uow.transaction() as session:
            await auth.end_login(session, entry_id)
    if ctx.chain is not None:
        ctx.chain.end()
    return Reply(LOGGED_OUT, None)


async def authenticate(request: Request) -> Response:
    """Checks vendor, username, password and PIN; answers a token and the session's login-log OTP."""
    resources: Resources = request.app.state.resources
    facts = facts_of(request)
    facts.action = "authenticate"
    try:
        body = await read_object(request, resources.settings.api.max_json_members)
        ip = request.client.host if request.client else None
        envelope = await check_credentials(body, ip=ip, uow=facts.uow, resources=resources)
    except LineupError as error:
        if error.code is MsgCode.TOKEN:  # credentials refused (wrong, locked, throttled): what the alert watches
            login_refused("api")
        return render_refusal(resources.settings.api, facts, error)
    return render(resources.settings.api, facts, envelope)


async def check_credentials(body: object, *, ip: str | None, uow: UnitOfWork, resources: Resources) -> Envelope:
    """The session's first token and login-log OTP, or `Invalid credentials!!`."""
    try:
        form = AuthenticateRequest.model_validate(body)
    except ValidationError as problems:
        # A credential that cannot be right (too long, not text) is answered as a wrong one.
        raise invalid(*describe_all(problems)) from None
    if missing := form.missing():
        raise invalid(*missing)
    settings, gates = resources.settings, resources.gates
    if not gates.api.admit(ip):
        raise invalid(THROTTLED, rest_status=429)
    async with uow.transaction() as session:
        user = await auth.active_api_user(session, vendor_code=str(form.vendor_id), username=str(form.username))
    throttle = Throttle.of(settings)
    # Claimed before the secrets are verified: parallel guesses cannot outrun the lockout.
    if user is not None and not await auth.claim_login(uow, ApiUser, _row(user), throttle):
        raise invalid(auth.LOCKED, rest_status=429)
    password, pin = str(form.password), str(form.pin)
    try:
        async with gates.queue.slot():
            ok = await _verify(user, password, pin)
    except Busy:
        if user is not None:
            await auth.release_login(uow, ApiUser, _row(user))
        raise invalid(THROTTLED, rest_status=429) from None
    if user is None:
        raise invalid()
    if not ok:
        await auth.settle_login(uow, ApiUser, _row(user), throttle, ok=False)
        raise invalid()
    if user.login_hash is None:  # right at last: from now on one verification a login
        hashed = await hash_secret_async(login_secret(password, pin))
        # Only over the hashes just verified: a password changed meanwhile keeps its row without a login hash.
        same = (col(ApiUser.password_hash) == user.password_hash, col(ApiUser.pin_hash) == user.pin_hash)
        async with uow.transaction() as session:
            await session.execute(update(ApiUser).where(_row(user), *same).values(login_hash=hashed))
    return await _open_session(uow, resources, user, ip)


def invalid(*errors: str, rest_status: int = 401) -> LineupError:
    return LineupError(MsgCode.TOKEN, INVALID, list(errors) or None, rest_status=rest_status)


async def _verify(user: ApiUser | None, password: str, pin: str) -> bool:
    """One argon2 for a user with a login hash, or for none (the dummy hash); a row from before login hashes
    (or after a password change) verifies its password and PIN apart, as it always did, until its next success."""
    if user is None or user.login_hash is not None:
        return await verify_secret_async(user.login_hash if user else None, login_secret(password, pin))
    password_ok = await verify_secret_async(user.password_hash, password)
    pin_ok = await verify_secret_async(user.pin_hash, pin)  # both always: a wrong PIN costs what a wrong password does
    return password_ok and pin_ok


async def _open_session(uow: UnitOfWork, resources: Resources, user: ApiUser, ip: str | None) -> Envelope:
    assert user.id is not None
    settings = resources.settings
    # No leading zero: channels send the OTP back as a JSON number, which would drop it.
    otp = str(100_000 + secrets.randbelow(900_000))
    async with uow.transaction() as session:
        # The success settles the attempt and clears the count; the row stays locked until commit, so a `lineup
        # api-user disable` came first (no row: refused) or comes after and drops this session's token with the rest
        # (whose attempt then stays pending until the throttle's stale bound frees it).
        active = and_(_row(user), col(ApiUser.active))
        if not await auth.settle_attempt(session, ApiUser, active, Throttle.of(settings), ok=True):
            raise invalid()
        otp_hash = auth.otp_digest(resources.cipher, otp)
        entry = LoginLog(vendor_id=user.vendor_id, api_user_id=user.id, otp=otp_hash, ip_address=ip)
        session.add(entry)
        await session.flush()
        owner = TokenOwner(vendor_id=user.vendor_id, api_user_id=user.id, login_log_id=entry.id)
        token = await auth.issue(session, owner, settings.auth.token_ttl_seconds)
    return Envelope(MsgCode.SUCCESS, "Successfully Authenticate", token=token, data={"login_log_otp": otp})


def _row(user: ApiUser) -> ColumnElement[bool]:
    return col(ApiUser.id) == user.id
