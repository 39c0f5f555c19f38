"""`/notes`: add_notes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError

from api.deps import LinesDep, SessionsDep
from api.envelope import success
from api.errors import refuse
from api.gate import Caller, gate
from api.idempotency import id_for_key, request_key
from models.db import transaction
from models.envelope import Envelope
from models.requests.notes import AddNotes, NotesAction
from models.tables.notes import Note

router = APIRouter(tags=["notes"])
NotesBody = Annotated[NotesAction, Body(discriminator="action")]
NotesCaller = Annotated[Caller, Depends(gate("notes"))]
NO_SUCH_CUSTOMER = "Customer Id and Enrollment Id do not name an existing customer"


@router.post("/notes", response_model=Envelope)
async def notes(
    request: Request, body: NotesBody, caller: NotesCaller, sessions: SessionsDep, lines: LinesDep
) -> JSONResponse:
    """Account notes."""
    match body:
        case AddNotes():
            return success(request, await add_notes(body, caller, sessions, lines))


async def add_notes(body: AddNotes, caller: Caller, sessions: SessionsDep, lines: LinesDep) -> dict[str, str]:
    """Adds the note to the customer that customer_id and enrollment_id both name; the author is the agent
    when one was named, else the token's API user. A repeated request answers the first note's id."""
    key = request_key(caller, body.external_transaction_id)
    if key and (done := await id_for_key(sessions, Note, key)):
        return {"notes_id": str(done)}
    # Another vendor's customer is refused in the same words as one that does not exist.
    line = await lines.find(body.enrollment_id, vendor_id=caller.vendor_id)
    if line is None or line.customer_id is None or line.customer_id != body.customer_id:
        raise refuse(NO_SUCH_CUSTOMER, rest_status=404)
    note = Note(
        idempotency_key=key, vendor_id=caller.vendor_id, enrollment_id=line.enrollment_id,
        customer_id=line.customer_id, text=lines.cipher.encrypt(body.customer_notes),
        latitude=body.coordinate.latitude, longitude=body.coordinate.longitude,
        is_activity=body.is_activity == "1", activity_type=body.activity_type, agent_id=caller.agent.id if caller.agent else None,
        api_user_id=caller.api_user_id,
    )  # fmt: skip
    try:
        async with transaction(sessions) as session:
            session.add(note)
            await session.flush()
            note_id = note.id
    except IntegrityError:  # the same request twice at once: the one that won answers
        assert key is not None
        note_id = await id_for_key(sessions, Note, key)
    return {"notes_id": str(note_id)}

