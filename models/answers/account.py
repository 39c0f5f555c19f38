"""`data` of the account and support operations: signatures, notes, saved cards, authentication, ops."""

from __future__ import annotations

from models.answers.base import Shape


class SignatureSaved(Shape):
    signature_id: str


class NoteAdded(Shape):
    notes_id: str


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


class Session(Shape):
    login_log_otp: str


class StuckLine(Shape):
    enrollment_id: str
    parent_enrollment_id: str
    status: str
    last_error: str
    since: str


class Retried(Shape):
    """One line: RETRYING (a stuck line's workflow tries again) or STARTED (its order's workflow started)."""

    enrollment_id: str
    status: str


class RetriedAll(Shape):
    """all_stuck Y: the lines resumed by this call, and how many more match for the next one."""

    retried: list[str]
    remaining: int
