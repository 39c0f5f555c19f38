"""`/cards`: saved_card_list."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlmodel import col, select

from models.envelope import MsgCode
from models.errors import LineupError
from models.requests.cards import SavedCardList
from models.results import saved_card_record
from models.tables.payment import SavedCard
from services.context import Context
from services.customer_login import customer_login


async def saved_card_list(*, body: SavedCardList, ctx: Context) -> list[dict[str, Any]]:
    """The cards make_payment saved for the customer's enrollment id, masked, oldest (the primary) first;
    card_id restricts the list to that card."""
    caller = ctx.caller
    if body.vendor_id is not None and body.vendor_id.upper() != caller.vendor_code:
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    line = await customer_login(ctx, enrollment_id=body.enrollment_id, email=body.username, password=body.password)
    query = (
        select(SavedCard)
        .where(SavedCard.enrollment_id == line.enrollment_id, SavedCard.vendor_id == caller.vendor_id)
        .order_by(col(SavedCard.id))
    )
    async with ctx.uow.transaction() as session:
        saved = list((await session.exec(query)).all())
    today = date.today()
    return [
        saved_card_record(card, ctx.cipher.open(card.holder), primary=index == 0, today=today)
        for index, card in enumerate(saved)
        if body.card_id is None or card.id == int(body.card_id)
    ]
