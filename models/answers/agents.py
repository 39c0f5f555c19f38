"""`data` of the agents domain: a saved signature."""

from __future__ import annotations

from models.answers.base import Shape


class SignatureSaved(Shape):
    signature_id: str


SIGNATURE_SAVED = SignatureSaved(signature_id="12")
