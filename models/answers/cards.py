"""`data` of the cards domain: a saved card, masked."""

from __future__ import annotations

from datetime import date

from models.answers.base import Shape
from models.tables.payment import SavedCard as SavedCardRow

HolderFields = dict[str, str]


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

    @classmethod
    def of(cls, card: SavedCardRow, holder: HolderFields, *, primary: bool, today: date) -> SavedCard:
        """A stored card as channels read it (PCI DSS: never the full number, never a CVV)."""
        expired = (int(card.exp_year), int(card.exp_month)) < (today.year, today.month)
        return cls(
            id=str(card.id),
            status=card.status,
            card_number="*" * 12 + card.last4,
            cvv="",
            name_on_card=holder.get("name_on_card", ""),
            card_type=card.brand,
            exp_month=card.exp_month,
            exp_year=card.exp_year,
            address1=holder.get("address1", ""),
            address2=holder.get("address2", ""),
            zip=holder.get("zip", ""),
            city=holder.get("city", ""),
            state=holder.get("state", ""),
            country=holder.get("country", ""),
            is_expired="Y" if expired else "N",
            is_primary="Y" if primary else "N",
        )


SAVED_CARD = SavedCard(
    id="7",
    status="Y",
    card_number="************1111",
    cvv="",
    name_on_card="Pat Lee",
    card_type="Visa",
    exp_month="12",
    exp_year="2030",
    address1="12 Main St",
    address2="",
    zip="30301",
    city="Atlanta",
    state="GA",
    country="US",
    is_expired="N",
    is_primary="Y",
)
