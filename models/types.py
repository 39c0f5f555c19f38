"""Reusable constrained types: each one a real `Annotated` alias (mypy sees its Python type), carrying its rule
and its JSON schema (models.rules builds them). Request models only compose these."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, StringConstraints, WithJsonSchema

from models.rules import (
    NAME_CHARACTERS,
    Checked,
    Listed,
    Plain,
    Raw,
    card_number,
    carrier,
    digits_with_check,
    email,
    encoded_size,
    esn,
    fail,
    in_range,
    ip_address,
    max_length,
    name_with_letters,
    number_or_string,
    numeric,
    past_date,
    port_carrier,
    rule,
    secret,
    single_line,
    text,
)

# fmt: off
US_STATES = frozenset((
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY",
    "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH",
    "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "AS", "GU", "MP",
    "PR", "VI", "UM",
))
# fmt: on


def _state(value: str) -> str:
    if value.upper() not in US_STATES:
        raise fail("must be a US state or territory abbreviation")
    return value.upper()


# Text bounded by the column it is stored in (or a sane bound); the `Num` forms take a JSON number as its text.
Text32 = Annotated[str, text(32)]
Text64 = Annotated[str, text(64)]
Text100 = Annotated[str, text(100)]
Text254 = Annotated[str, text(254)]
NumText32 = Annotated[str, text(32, numbers=True)]
# Taken as sent (passwords, credentials): never trimmed.
NumOrStr = Annotated[str, Raw(100, numbers=True)]
Raw32 = Annotated[str, Raw(32, numbers=True)]
Raw64 = Annotated[str, Raw(64)]
Raw100 = Annotated[str, Raw(100, numbers=True)]
Raw128 = Annotated[str, Raw(128)]

Numeric = Annotated[str, Checked(numeric, numbers=True)]
Zip5 = Annotated[str, rule(r"\d{5}", "must be exactly 5 digits", example="30301")]
Zip5to8 = Annotated[str, rule(r"\d{5,8}", "must be 5 to 8 digits", example="30301")]
Phone10 = Annotated[str, rule(r"\d{10}", "must be exactly 10 digits", example="4045550123")]
Ssn4 = Annotated[str, rule(r"\d{4}", "must be exactly 4 digits", example="1234")]
TransactionId = Annotated[
    str, rule(r"[A-Za-z0-9]{1,64}", "must be letters and digits only, at most 64", example="ORD20261121A1")
]
# A payment processor's reference as it gives it (ch_…, pi_…, pm_…; decisions.md "External payment references").
ProcessorReference = Annotated[
    str,
    rule(
        r"[A-Za-z0-9_.:\-]{1,255}",
        "must be 1 to 255 letters, digits and _ . : - (the processor's reference)",
        example="ch_3P0kXa2eZvKYlo2C1aBcDeFg",
    ),
]
Alnum = Annotated[str, rule(r"[A-Za-z0-9]{1,24}", "must be letters and digits only", example="EA1B2C3D4E5F6G7H")]

PersonName = Annotated[
    str,
    Checked(
        name_with_letters(0),
        {
            "type": "string",
            "pattern": "^[A-Za-z '`-]{1,50}$",
            "description": NAME_CHARACTERS,
            "examples": ["Mary-Jane"],
        },
    ),
]
MiddleInitial = Annotated[str, Checked(name_with_letters(1))]
LastName = Annotated[str, Checked(name_with_letters(2))]
City = Annotated[str, rule(r"[A-Za-z -]{1,60}", "may contain only letters, spaces and hyphens", example="Atlanta")]
AddressLine = Annotated[
    str, rule(r"[A-Za-z0-9 /#-]{1,100}", "may contain only letters, digits, spaces and / # -", example="12 Main St")
]
State = Annotated[str, Checked(_state, {"type": "string", "maxLength": 2, "examples": ["GA"]})]
Latitude = Annotated[str, Checked(in_range(-90, 90, "latitude"), numbers=True)]
Longitude = Annotated[str, Checked(in_range(-180, 180, "longitude"), numbers=True)]
IpAddress = Annotated[str, Checked(ip_address)]
PastDate = Annotated[str, Checked(past_date, {"type": "string", "format": "date", "examples": ["1980-04-12"]})]
Otp = Annotated[str, Checked(lambda value: value, numbers=True)]
CardNumber = Annotated[str, Checked(card_number)]
Iccid = Annotated[
    str, Checked(digits_with_check(r"89\d{16,20}", "must be 18 to 22 digits starting 89 with a valid check digit"))
]
Imei = Annotated[str, Checked(digits_with_check(r"\d{15}", "must be 15 digits with a valid check digit"))]
Mdn = Annotated[
    str, rule(r"[2-9]\d{2}[2-9]\d{6}", "must be 10 digits; area code and exchange may not start with 0 or 1")
]
Email = Annotated[str, Checked(email, {"type": "string", "format": "email", "examples": ["pat@example.com"]})]
Cvv = Annotated[str, rule(r"\d{3,4}", "must be 3 or 4 digits", example="123")]
Month = Annotated[str, rule(r"0[1-9]|1[0-2]", "must be a two-digit month, 01 to 12", example="08")]
Year4 = Annotated[str, rule(r"20\d{2}", "must be a four-digit year", example="2029")]
YesNo = Literal["Y", "N"]  # optional everywhere: a blank flag is an absent one (BlankIsAbsent)
Esn = Annotated[str, Checked(esn)]
CarrierCode = Annotated[
    str,
    BeforeValidator(number_or_string),
    StringConstraints(strip_whitespace=True, to_upper=True),
    AfterValidator(carrier),
    WithJsonSchema({"type": "string", "examples": ["TMB"], "description": "a carrier abbreviation or alias"}),
]
CardHolder = Annotated[
    str, rule(r"[A-Za-z .'`-]{2,100}", "may contain only letters, spaces and . ' ` -", example="Pat Q Doe")
]
AccountNumber = Annotated[str, rule(r"[A-Za-z0-9-]{1,30}", "must be letters, digits and hyphens, at most 30")]
AccountPin = Annotated[str, rule(r"[A-Za-z0-9]{1,20}", "must be letters and digits, at most 20")]
PortSsn = Annotated[str, rule(r"\d{4}|\d{9}", "must be the last 4 digits or all 9 digits")]
# A customer's account PIN (port-out, account checks): 4 digits, a JSON number taken as its text.
CustomerPin = Annotated[str, replace(rule(r"\d{4}", "must be exactly 4 digits", example="4821"), numbers=True)]
PortCarrier = Annotated[str, Checked(port_carrier, {"type": "string", "examples": ["TMB", "4"]}, numbers=True)]
Iccid18to22 = Annotated[str, rule(r"\d{18,22}", "must be 18 to 22 digits", example="890126096321234567")]

MAIL_BODY_LIMIT = 256 * 1024
MAX_RECIPIENTS = 50
HeaderName = Annotated[
    str, Checked(single_line(100), {"type": "string", "maxLength": 100, "examples": ["Lineup Support"]})
]
Subject = Annotated[
    str, Checked(single_line(255), {"type": "string", "maxLength": 255, "examples": ["Your line is active"]})
]
HtmlBody = Annotated[str, Checked(encoded_size(MAIL_BODY_LIMIT), {"type": "string", "examples": ["<p>Welcome!</p>"]})]
HeaderNames = Annotated[
    list[str], Listed(single_line(100), MAX_RECIPIENTS, {"type": "string", "examples": ["Pat Doe"]})
]
Emails = Annotated[list[str], Listed(email, MAX_RECIPIENTS, {"type": "string", "format": "email"})]

NOTE_LIMIT = 4000
NoteText = Annotated[
    str,
    Checked(max_length(NOTE_LIMIT), {"type": "string", "maxLength": NOTE_LIMIT, "examples": ["Called about the bill"]}),
]
ActivityType = Annotated[str, Checked(single_line(100), {"type": "string", "maxLength": 100, "examples": ["CALL"]})]
ZeroOne = Annotated[Literal["0", "1"], BeforeValidator(number_or_string)]  # samples send 0/1 as numbers too
Secret = Annotated[str, Plain(secret, {"type": "string", "format": "password"})]
