"""`/cards`: saved_card_list."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlmodel import col, select

from api.customer_login import customer_login
from api.deps import LinesDep, SessionsDep, SettingsDep
from api.envelope import success
from api.errors import LineupError
from api.gate import Caller, gate
from models.envelope import Envelope, MsgCode
from models.requests.cards import CardsAction, SavedCardList
from models.results import saved_card_record
from models.tables.payment import SavedCard

router = APIRouter(tags=["cards"])
CardsBody = Annotated[CardsAction, Body(discriminator="action")]
CardsCaller = Annotated[Caller, Depends(gate("cards"))]


@router.post("/cards", response_model=Envelope)
async def cards(
    request: Request, body: CardsBody, caller: CardsCaller, sessions: SessionsDep, settings: SettingsDep,
    lines: LinesDep,
) -> JSONResponse:  # fmt: skip
    """Saved payment cards."""
    match body:
        case SavedCardList():
            return success(request, await saved_card_list(body, caller, sessions, settings, lines))


async def saved_card_list(
    body: SavedCardList, caller: Caller, sessions: SessionsDep, settings: SettingsDep, lines: LinesDep
) -> list[dict[str, Any]]:
    """The cards make_payment saved for the customer's enrollment id, masked, oldest (the primary) first;
    card_id restricts the list to that card."""
    if body.vendor_id is not None and body.vendor_id.upper() != caller.vendor_code:
        raise LineupError(MsgCode.COMPANY, "Invalid company")
    line = await customer_login(
        sessions, settings, vendor_id=caller.vendor_id, enrollment_id=body.enrollment_id, email=body.username,
        password=body.password,
    )  # fmt: skip
    query = (
        select(SavedCard)
        .where(SavedCard.enrollment_id == line.enrollment_id, SavedCard.vendor_id == caller.vendor_id)
        .order_by(col(SavedCard.id))
    )
    async with sessions() as session:
        saved = list((await session.exec(query)).all())
    today = date.today()
    return [
        saved_card_record(card, lines.open(card.holder), primary=index == 0, today=today)
        for index, card in enumerate(saved)
        if body.card_id is None or card.id == int(body.card_id)
    ]
