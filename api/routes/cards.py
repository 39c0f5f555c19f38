"""`/cards`: saved_card_list."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.cards import CardsAction, SavedCardList
from services import cards as operations
from services.context import Context

router = APIRouter(tags=["cards"])
CardsBody = Annotated[CardsAction, Body(discriminator="action")]
CardsContext = Annotated[Context, Depends(gate("cards"))]


@router.post("/cards", response_model=Envelope)
async def cards(request: Request, body: CardsBody, ctx: CardsContext) -> JSONResponse:
    """Saved payment cards."""
    match body:
        case SavedCardList():
            return success(request, await operations.saved_card_list(body=body, ctx=ctx))
