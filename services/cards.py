"""The cards domain: saved_card_list, behind the customer's own login (the line's enrollment e-mail and
password, throttled per line as API-user logins are: LINEUP_LOGIN_MAX_FAILURES attempts without a success lock it
for LINEUP_LOGIN_LOCKOUT_SECONDS)."""

from __future__ import annotations

import hmac
from datetime import date

from sqlmodel import col, select

from dispatch.actions import action
from dispatch.context import Context
from models.answers.cards import SAVED_CARD, SavedCard
from models.documents import Fields
from models.envelope import MsgCode
from models.errors import LineupError, refuse
from models.requests.cards import SavedCardList
from models.tables.enrollment import Line
from models.tables.payment import SavedCard as SavedCardRow
from persistence.auth.logins import LOCKED, Throttle, claim_customer_attempt, settle_customer_attempt
from persistence.enrollment import email_hash, vendor_line
from services.enrollment.passwords import verify_line_password

INVALID_PAIR = "Invalid username or password"


@action("cards", interface=True, agent_required=False, example=[SAVED_CARD])
async def saved_card_list(*, body: SavedCardList, ctx: Context) -> list[SavedCard]:
    """A customer's saved cards (make_payment saved them), masked, oldest (the primary) first; card_id
    restricts the list to that card. The customer logs in with the line's e-mail and password."""
    caller = ctx.caller
    if body.vendor_id is not None and body.vendor_id.upper() != caller.vendor_code:
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    line = await customer_login(ctx, enrollment_id=body.enrollment_id, email=body.username, password=body.password)
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


async def customer_login(ctx: Context, *, enrollment_id: str, email: str, password: str) -> Line:
    """The vendor's line when the e-mail and password are its own, else `Invalid username or password`. The
    attempt is counted in transactions of their own, committed whatever this request comes to."""
    async with ctx.uow.transaction() as session:
        # Another vendor's customer answers as an unknown one.
        line = await vendor_line(session, enrollment_id, vendor_id=ctx.caller.vendor_id)
    await ctx.uow.commit_before_wait()  # argon2 and the throttle's waits hold neither a connection nor a lock
    throttle = Throttle.of(ctx.settings)
    # Claimed before the password is verified: parallel guesses cannot outrun the lockout.
    if line is not None and not await claim_customer_attempt(ctx.uow, enrollment_id, throttle):
        raise refuse(LOCKED, rest_status=429)
    # Always verified: an unknown line or a wrong e-mail costs as much time as a wrong password.
    email_ok = line is not None and hmac.compare_digest(line.email_hash, email_hash(ctx.cipher, email))
    password_ok = await verify_line_password(ctx.resources.db, ctx.cipher, line, password)
    if line is not None:
        await settle_customer_attempt(ctx.uow, enrollment_id, throttle, ok=email_ok and password_ok)
    if line is None or not (email_ok and password_ok):
        raise refuse(INVALID_PAIR, rest_status=401)
    return line
