"""`data` of the notes domain: the note added."""

from __future__ import annotations

from models.answers.base import Shape


class NoteAdded(Shape):
    notes_id: str


NOTE_ADDED = NoteAdded(notes_id="31")
