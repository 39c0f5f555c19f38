"""Customer login for saved_card_list: the line's enrollment e-mail and password, throttled per line as
API-user logins are (LINEUP_LOGIN_MAX_FAILURES attempts without a success lock it for
LINEUP_LOGIN_LOCKOUT_SECONDS)."""

from __future__ import annotations

import hmac

from models.errors import refuse
from models.passwords import verify_secret_async
from models.tables.enrollment import Line
from persistence.enrollment import email_hash, vendor_line
from persistence.logins import LOCKED, Throttle, claim_customer_attempt, settle_customer_attempt
from services.context import Context

INVALID_PAIR = "Invalid username or password"


async def customer_login(ctx: Context, *, enrollment_id: str, email: str, password: str) -> Line:
    """The vendor's line when the e-mail and password are its own, else `Invalid username or password`."""
    async with ctx.uow.transaction() as session:
        # Another vendor's customer answers as an unknown one.
        line = await vendor_line(session, enrollment_id, vendor_id=ctx.caller.vendor_id)
    throttle = Throttle.of(ctx.settings)
    # Claimed before the password is verified: parallel guesses cannot outrun the lockout.
    if line is not None and not await claim_customer_attempt(ctx.uow, enrollment_id, throttle):
        raise refuse(LOCKED, rest_status=429)
    # Always verified: an unknown line or a wrong e-mail costs as much time as a wrong password.
    email_ok = line is not None and hmac.compare_digest(line.email_hash, email_hash(email))
    password_ok = await verify_secret_async(line.password_hash if line else None, password)
    if line is not None:
        await settle_customer_attempt(ctx.uow, enrollment_id, throttle, ok=email_ok and password_ok)
    if line is None or not (email_ok and password_ok):
        raise refuse(INVALID_PAIR, rest_status=401)
    return line
