"""`data` of the cards domain: a saved card, masked."""

from __future__ import annotations

from models.answers.base import Shape


class SavedCard(Shape):
    """Interface section 2.6, masked: the last four digits, and an empty cvv (none is ever stored)."""

    id: str
    status: str
    card_number: str
    cvv: str
    name_on_card: str
    card_type: str
    exp_month: str
    exp_year: str
    address1: str
    address2: str
    zip: str
    city: str
    state: str
    country: str
    is_expired: str
    is_primary: str
