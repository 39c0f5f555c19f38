"""`/notes`: add_notes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from api.envelope import success
from api.gate import gate
from models.envelope import Envelope
from models.requests.notes import AddNotes, NotesAction
from services import notes as operations
from services.context import Context

router = APIRouter(tags=["notes"])
NotesBody = Annotated[NotesAction, Body(discriminator="action")]
NotesContext = Annotated[Context, Depends(gate("notes"))]


@router.post("/notes", response_model=Envelope)
async def notes(request: Request, body: NotesBody, ctx: NotesContext) -> JSONResponse:
    """Account notes."""
    match body:
        case AddNotes():
            return success(request, await operations.add_notes(body=body, ctx=ctx))
