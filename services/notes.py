"""`/notes`: add_notes."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError

from models.errors import refuse
from models.requests.notes import AddNotes
from models.tables.notes import Note
from persistence.idempotency import id_for_key
from persistence.lines import vendor_line
from services.context import Context

NO_SUCH_CUSTOMER = "Customer Id and Enrollment Id do not name an existing customer"


async def add_notes(*, body: AddNotes, ctx: Context) -> dict[str, str]:
    """Adds the note to the customer that customer_id and enrollment_id both name; the author is the agent
    when one was named, else the token's API user. A repeated request answers the first note's id."""
    caller = ctx.caller
    key = caller.request_key(body.external_transaction_id)
    try:
        async with ctx.uow.transaction() as session:
            if key and (done := await id_for_key(session, Note, key)):
                return {"notes_id": str(done)}
            # Another vendor's customer is refused in the same words as one that does not exist.
            line = await vendor_line(session, body.enrollment_id, vendor_id=caller.vendor_id)
            if line is None or line.customer_id is None or line.customer_id != body.customer_id:
                raise refuse(NO_SUCH_CUSTOMER, rest_status=404)
            note = Note(
                idempotency_key=key, vendor_id=caller.vendor_id, enrollment_id=line.enrollment_id,
                customer_id=line.customer_id, text=ctx.cipher.encrypt(body.customer_notes),
                latitude=body.coordinate.latitude, longitude=body.coordinate.longitude,
                is_activity=body.is_activity == "1", activity_type=body.activity_type,
                agent_id=caller.agent.id if caller.agent else None, api_user_id=caller.api_user_id,
            )  # fmt: skip
            session.add(note)
            await session.flush()
            note_id = note.id
    except IntegrityError:  # the same request twice at once: the one that won answers
        assert key is not None
        async with ctx.uow.transaction() as session:
            note_id = await id_for_key(session, Note, key)
    return {"notes_id": str(note_id)}
