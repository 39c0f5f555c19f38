"""Reusable constrained types. Each failure carries a rule message; the API prefixes the field's label."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, PlainValidator, StringConstraints, WithJsonSchema
from pydantic_core import PydanticCustomError

from models.carriers import unknown_carrier

# fmt: off
US_STATES = frozenset((
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY",
    "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH",
    "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "AS", "GU", "MP",
    "PR", "VI", "UM",
))
# fmt: on


def fail(message: str) -> PydanticCustomError:
    return PydanticCustomError("rule", message)


def blank() -> PydanticCustomError:
    """Channels send "" for a field they have no value for: that is a missing field, not a bad one."""
    return PydanticCustomError("blank", "is required")


def checked(check: Callable[[str], str], schema: dict[str, Any] | None = None, *, numbers: bool = False) -> Any:
    """A required, trimmed string passed through `check`, which raises `fail(...)`; blank is missing.
    With `numbers`, a JSON number is taken as its text (samples send some ids and OTPs as numbers)."""

    def required(value: str) -> str:
        if value == "":
            raise blank()
        return check(value)

    before: list[Any] = [BeforeValidator(_number_or_string)] if numbers else []
    extras: list[Any] = [WithJsonSchema(schema)] if schema else []
    return Annotated[str, *before, StringConstraints(strip_whitespace=True), AfterValidator(required), *extras]


def rule(pattern: str, message: str, *, example: str | None = None) -> Any:
    """A required string matching `pattern` entirely; `message` says the rule in words."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise fail(message)
        return value

    schema: dict[str, Any] = {"type": "string", "pattern": f"^(?:{pattern})$", "description": message}
    if example is not None:
        schema["examples"] = [example]
    return checked(check, schema)


def luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def with_check_digit(stem: str) -> str:
    """`stem` and the Luhn check digit that makes it valid."""
    return next(stem + digit for digit in "0123456789" if luhn_ok(stem + digit))


def _number_or_string(value: Any) -> Any:
    # Samples send some ids as JSON numbers; bool is an int in Python but never an id.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _in_range(low: int, high: int, what: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        try:
            number = Decimal(value)
        except InvalidOperation:
            raise fail(f"must be a decimal number between {low} and {high}") from None
        if not number.is_finite() or not low <= number <= high:
            raise fail(f"must be a {what} between {low} and {high}")
        return value

    return check


def _ip(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise fail("must be a valid IPv4 or IPv6 address") from None


def _past_date(value: str) -> str:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise fail("must be a real date in the form YYYY-MM-DD") from None
    if len(value) != 10 or day >= date.today():
        raise fail("must be a real date in the form YYYY-MM-DD, in the past")
    return value


def _state(value: str) -> str:
    if value.upper() not in US_STATES:
        raise fail("must be a US state or territory abbreviation")
    return value.upper()


def _digits_with_check(pattern: str, message: str) -> Callable[[str], str]:
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value) or not luhn_ok(value):
            raise fail(message)
        return value

    return check


def _card_number(value: str) -> str:
    digits = value.replace(" ", "").replace("-", "")
    return _digits_with_check(r"\d{12,19}", "must be a valid card number")(digits)


def _email(value: str) -> str:
    if len(value) > 254 or not re.fullmatch(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}", value):
        raise fail("must be a valid e-mail address")
    return value


def _numeric(value: str) -> str:
    # ASCII digits only ("²".isdigit() is true), and few enough to fit the database's integer ids.
    if not re.fullmatch(r"[0-9]+", value):
        raise fail("must be numeric")
    if len(value.lstrip("0")) > 9:
        raise fail("must be at most 9 digits")
    return value


def _max_length(limit: int) -> Callable[[str], str]:
    def check(value: str) -> str:
        if len(value) > limit:
            raise fail(f"must be at most {limit:,} characters")
        return value

    return check


def text(limit: int, *, numbers: bool = False) -> Any:
    """Trimmed, required text of at most `limit` characters (the column it is stored in, or a sane bound)."""
    return checked(_max_length(limit), {"type": "string", "maxLength": limit}, numbers=numbers)


def raw(limit: int, *, numbers: bool = False) -> Any:
    """Text taken as sent (a password: no trimming), of at most `limit` characters."""
    before: list[Any] = [BeforeValidator(_number_or_string)] if numbers else []
    return Annotated[str, *before, StringConstraints(max_length=limit)]


Text = text(255)
Text32, Text64, Text100, Text254 = text(32), text(64), text(100), text(254)
NumText32 = text(32, numbers=True)
NumOrStr = raw(100, numbers=True)
Raw32, Raw64, Raw100, Raw128 = raw(32, numbers=True), raw(64), raw(100, numbers=True), raw(128)
Numeric = checked(_numeric, numbers=True)
Zip5 = rule(r"\d{5}", "must be exactly 5 digits", example="30301")
Zip5to8 = rule(r"\d{5,8}", "must be 5 to 8 digits", example="30301")
Phone10 = rule(r"\d{10}", "must be exactly 10 digits", example="4045550123")
Ssn4 = rule(r"\d{4}", "must be exactly 4 digits", example="1234")
TransactionId = rule(r"[A-Za-z0-9]{1,64}", "must be letters and digits only, at most 64", example="ORD20261121A1")
Alnum = rule(r"[A-Za-z0-9]{1,24}", "must be letters and digits only", example="EA1B2C3D4E5F6G7H")
NAME_CHARACTERS = "may contain only English letters, spaces, apostrophes, accents grave and hyphens"


def _name_with_letters(minimum: int) -> Callable[[str], str]:
    """A trimmed name of at most 50 characters, with at least `minimum` letters: one rule, one message each."""

    def check(value: str) -> str:
        if not re.fullmatch(r"[A-Za-z '`-]*", value):
            raise fail(NAME_CHARACTERS)
        if len(value) > 50:
            raise fail("must be at most 50 characters")
        if sum(char.isalpha() for char in value) < minimum:
            raise fail(f"must contain at least {minimum} letter{'s' if minimum > 1 else ''}")
        return value

    return check


PersonName = checked(
    _name_with_letters(0),
    {"type": "string", "pattern": "^[A-Za-z '`-]{1,50}$", "description": NAME_CHARACTERS, "examples": ["Mary-Jane"]},
)
City = rule(r"[A-Za-z -]{1,60}", "may contain only letters, spaces and hyphens", example="Atlanta")
AddressLine = rule(
    r"[A-Za-z0-9 /#-]{1,100}", "may contain only letters, digits, spaces and / # -", example="12 Main St"
)
State = checked(_state, {"type": "string", "maxLength": 2, "examples": ["GA"]})
Latitude = checked(_in_range(-90, 90, "latitude"), numbers=True)
Longitude = checked(_in_range(-180, 180, "longitude"), numbers=True)
IpAddress = checked(_ip)
PastDate = checked(_past_date, {"type": "string", "format": "date", "examples": ["1980-04-12"]})
Otp = checked(lambda value: value, numbers=True)
CardNumber = checked(_card_number)
Iccid = checked(_digits_with_check(r"89\d{16,20}", "must be 18 to 22 digits starting 89 with a valid check digit"))
Imei = checked(_digits_with_check(r"\d{15}", "must be 15 digits with a valid check digit"))
Mdn = rule(r"[2-9]\d{2}[2-9]\d{6}", "must be 10 digits; area code and exchange may not start with 0 or 1")
Email = checked(_email, {"type": "string", "format": "email", "examples": ["pat@example.com"]})
Cvv = rule(r"\d{3,4}", "must be 3 or 4 digits", example="123")
Month = rule(r"0[1-9]|1[0-2]", "must be a two-digit month, 01 to 12", example="08")
Year4 = rule(r"20\d{2}", "must be a four-digit year", example="2029")
YesNo = Literal["Y", "N"]  # optional everywhere: a blank flag is an absent one (BlankIsAbsent)


def _esn(value: str) -> str:
    """A SIM (ICCID), an IMEI, a MEID (14 hex) or an ESN (8 hex or 11 digits)."""
    upper = value.upper()
    if re.fullmatch(r"89\d{16,20}|\d{15}", upper) and luhn_ok(upper):
        return upper
    if re.fullmatch(r"[0-9A-F]{14}|[0-9A-F]{8}|\d{11}|\d{18}", upper):
        return upper
    raise fail("must be a valid SIM, IMEI, MEID or ESN")


def _carrier(value: str) -> str:
    # The syntax only: whether the code names a carrier depends on the deployment's LINEUP_CARRIER_ALIASES,
    # which the operation resolves (services.carriers), with the same words as models.carriers.
    if value == "":
        raise blank()
    if not re.fullmatch(r"[A-Z0-9]{1,32}", value):
        raise fail(unknown_carrier({}))
    return value


CarrierCode = Annotated[
    str,
    BeforeValidator(_number_or_string),
    StringConstraints(strip_whitespace=True, to_upper=True),
    AfterValidator(_carrier),
    WithJsonSchema({"type": "string", "examples": ["TMB"], "description": "a carrier abbreviation or alias"}),
]


Esn = checked(_esn)
MiddleInitial = checked(_name_with_letters(1))
LastName = checked(_name_with_letters(2))
CardHolder = rule(r"[A-Za-z .'`-]{2,100}", "may contain only letters, spaces and . ' ` -", example="Pat Q Doe")
AccountNumber = rule(r"[A-Za-z0-9-]{1,30}", "must be letters, digits and hyphens, at most 30")
AccountPin = rule(r"[A-Za-z0-9]{1,20}", "must be letters and digits, at most 20")
PortSsn = rule(r"\d{4}|\d{9}", "must be the last 4 digits or all 9 digits")


def _port_carrier(value: str) -> str:
    upper = value.upper()
    if upper.isdigit() or upper in ("SPR", "TMB", "VER", "ATT"):
        return upper
    raise fail("must be a numeric carrier id or one of SPR, TMB, VER, ATT")


PortCarrier = checked(_port_carrier, {"type": "string", "examples": ["TMB", "4"]}, numbers=True)
Iccid18to22 = rule(r"\d{18,22}", "must be 18 to 22 digits", example="890126096321234567")


def _single_line(limit: int) -> Callable[[str], str]:
    """Text that goes into a mail header: a line break there would start a header of the sender's choosing."""

    def check(value: str) -> str:
        if "\r" in value or "\n" in value:
            raise fail("must not contain line breaks")
        if any(ord(char) < 32 or ord(char) == 127 for char in value):
            raise fail("must not contain control characters")
        if len(value) > limit:
            raise fail(f"must be at most {limit} characters")
        return value

    return check


def _html_body(limit: int) -> Callable[[str], str]:
    def check(value: str) -> str:
        if len(value.encode()) > limit:
            raise fail(f"must be at most {limit // 1024} KiB")
        return value

    return check


def listed(check: Callable[[str], str], *, most: int, schema: dict[str, Any]) -> Any:
    """A required list of 1 to `most` strings, each trimmed and passed through `check`; a failure names the
    entry's position (`Receiver email #2 must be …`). An empty list is a missing field."""

    def each(values: list[Any]) -> list[str]:
        if not values:
            raise blank()
        if len(values) > most:
            raise fail(f"must hold at most {most} entries")
        accepted = []
        for position, value in enumerate(values, start=1):
            if not isinstance(value, str) or not value.strip():
                raise fail(f"#{position} must be non-empty text")
            try:
                accepted.append(check(value.strip()))
            except PydanticCustomError as problem:
                raise fail(f"#{position} {problem.message()}") from None
        return accepted

    array = {"type": "array", "items": schema, "minItems": 1, "maxItems": most}
    # The length is checked before any entry is looked at.
    return Annotated[list[Any], Field(max_length=most), AfterValidator(each), WithJsonSchema(array)]


MAIL_BODY_LIMIT = 256 * 1024
MAX_RECIPIENTS = 50
HeaderName = checked(_single_line(100), {"type": "string", "maxLength": 100, "examples": ["Lineup Support"]})
Subject = checked(_single_line(255), {"type": "string", "maxLength": 255, "examples": ["Your line is active"]})
HtmlBody = checked(_html_body(MAIL_BODY_LIMIT), {"type": "string", "examples": ["<p>Welcome!</p>"]})
HeaderNames = listed(_single_line(100), most=MAX_RECIPIENTS, schema={"type": "string", "examples": ["Pat Doe"]})
Emails = listed(_email, most=MAX_RECIPIENTS, schema={"type": "string", "format": "email"})


def _secret(value: Any) -> str:
    """A password as typed: never trimmed (a space may be part of it), never empty, short enough to hash."""
    if value is None or value == "":
        raise blank()
    if not isinstance(value, str):
        raise fail("must be text")
    if len(value) > 128:
        raise fail("must be at most 128 characters")
    return value


NOTE_LIMIT = 4000
NoteText = checked(
    _max_length(NOTE_LIMIT), {"type": "string", "maxLength": NOTE_LIMIT, "examples": ["Called about the bill"]}
)
ActivityType = checked(_single_line(100), {"type": "string", "maxLength": 100, "examples": ["CALL"]})
ZeroOne = Annotated[Literal["0", "1"], BeforeValidator(_number_or_string)]  # samples send 0/1 as numbers too
Secret = Annotated[str, PlainValidator(_secret), WithJsonSchema({"type": "string", "format": "password"})]
