"""`/auth` logout: the end of a session."""

from __future__ import annotations

from persistence import tokens
from persistence.logins import close_login_entry
from services.context import Context

LOGGED_OUT = "Logged out"


async def logout(*, ctx: Context) -> str:
    """Closes the session's login-log entry (its OTP stops working) and deletes the session's tokens, the
    one minted for this answer included: the next call needs a new /authenticate."""
    entry_id = ctx.caller.login_log_id
    async with ctx.uow.transaction() as session:
        if entry_id is not None:
            await close_login_entry(session, entry_id)
        await tokens.drop_session(session, entry_id, ctx.fresh_token)
    return LOGGED_OUT
