"""The auth domain's logout: the end of a session."""

from __future__ import annotations

from dispatch.actions import ALL_SOURCES, action
from dispatch.context import Context, Reply
from models.requests.auth import Logout
from persistence.auth import tokens
from persistence.auth.logins import close_login_entry

LOGGED_OUT = "Logged out"


@action("auth", sources=ALL_SOURCES, source_required=False, agent_required=False, msg=LOGGED_OUT)
async def logout(*, body: Logout, ctx: Context) -> Reply[None]:
    """Ends the session the token belongs to: its login-log OTP closes and its tokens stop working, the one this
    answer carries included; the next call needs a new /authenticate. Needs nothing but the token."""
    entry_id = ctx.caller.login_log_id
    async with ctx.uow.transaction() as session:
        if entry_id is not None:
            await close_login_entry(session, entry_id)
        await tokens.drop_session(session, entry_id)
    if ctx.chain is not None:
        ctx.chain.end()
    return Reply(LOGGED_OUT, None)
