"""The notes domain: add_notes."""

from __future__ import annotations

from dispatch.actions import action
from dispatch.context import Context
from models.answers.notes import NOTE_ADDED, NoteAdded
from models.errors import refuse
from models.requests.notes import AddNotes
from models.tables.notes import Note
from persistence.enrollment import vendor_line
from persistence.idempotency import insert_once
from persistence.transaction import DbSession

NO_SUCH_CUSTOMER = "Customer Id and Enrollment Id do not name an existing customer"


@action("notes", interface=True, agent_required=False, example=NOTE_ADDED)
async def add_notes(*, body: AddNotes, ctx: Context) -> NoteAdded:
    """Adds a note to the customer that customer_id and enrollment_id both name; the author is the agent when
    one was named, else the token's API user. A repeated request answers the first note's id."""
    caller = ctx.caller
    key = caller.request_key(body.external_transaction_id)

    async def build(session: DbSession) -> Note:
        # Another vendor's customer is refused in the same words as one that does not exist.
        line = await vendor_line(session, body.enrollment_id, vendor_id=caller.vendor_id)
        if line is None or line.customer_id is None or line.customer_id != body.customer_id:
            raise refuse(NO_SUCH_CUSTOMER, rest_status=404)
        return Note(
            idempotency_key=key,
            vendor_id=caller.vendor_id,
            enrollment_id=line.enrollment_id,
            customer_id=line.customer_id,
            text=ctx.cipher.encrypt(body.customer_notes),
            latitude=body.coordinate.latitude,
            longitude=body.coordinate.longitude,
            is_activity=body.is_activity == "1",
            activity_type=body.activity_type,
            agent_id=caller.agent.id if caller.agent else None,
            api_user_id=caller.api_user_id,
        )

    return NoteAdded(notes_id=str(await insert_once(ctx.uow, Note, key, build)))
