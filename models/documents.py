"""The JSON documents sealed in encrypted columns (models.crypto), by shape: what each sealer writes is what
each opener reads, validated when opened."""

from __future__ import annotations

from typing_extensions import TypedDict  # pydantic validates these; on Python < 3.12 it needs this one

# A line's PII, a port's old-account secrets, a saved card's holder: text fields by name.
Fields = dict[str, str]


class Subject(TypedDict):
    """Whom NLAD is asked about (nlad_etc_check's fields)."""

    first_name: str
    middle_name: str | None
    last_name: str
    dob: str
    address_one: str
    address_two: str | None
    city: str
    state: str
    zip_code: str
    ssn4: str


class MailContent(TypedDict):
    sender_name: str
    sender_email: str
    subject: str
    body: str
    recipients: list[tuple[str, str]]  # (name, address)


class CardOnFile(TypedDict):
    """What a card payment keeps for the card it saves once paid (the gateway keeps the number)."""

    exp_month: str
    exp_year: str
    holder: Fields


class EsimDocument(TypedDict):
    iccid: str
    activation_code: str
