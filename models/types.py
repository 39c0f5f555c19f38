"""Reusable constrained types and what every request carries: each type a real `Annotated` alias (mypy sees its
Python type) carrying its rule, its message in words and its JSON schema; text that cannot be stored refused;
"" (and null) for an optional field taken as absent; fields required only when others say so; the carriers
Lineup sells on and the vendor codes channels send for them; and the one clock every room reads."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Annotated, Literal, Self

from annotated_types import GroupedMetadata
from pydantic import (
    AfterValidator,
    AliasChoices,
    AliasPath,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PlainValidator,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from models.envelope import refuse


def utcnow() -> datetime:
    """Aware UTC; SQLModel's datetime columns store it the same way on SQLite and PostgreSQL."""
    return datetime.now(UTC)


CARRIER_NAMES: dict[str, str] = {
    "ATT": "AT&T Mobility",
    "TMB": "T-Mobile USA",
    "VER": "Verizon Wireless",
    "SPR": "Sprint",
    "TMBRLY": "T-Mobile (reseller)",
    "USC": "UScellular",
}


def parse_aliases(text: str) -> dict[str, str]:
    """`CODE:ABBR,CODE:ABBR` as {CODE: ABBR}; an alias naming no known carrier is a configuration error."""
    aliases: dict[str, str] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        code, _, abbreviation = pair.partition(":")
        code, abbreviation = code.strip().upper(), abbreviation.strip().upper()
        if not code or abbreviation not in CARRIER_NAMES:
            raise ValueError(f"carrier alias {pair!r} must be CODE:ABBREVIATION with one of {', '.join(CARRIER_NAMES)}")
        aliases[code] = abbreviation
    return aliases


def canonical(code: str, aliases: Mapping[str, str]) -> str | None:
    """The carrier abbreviation a code names (itself, or through an alias); None for an unknown code."""
    upper = code.strip().upper()
    return upper if upper in CARRIER_NAMES else aliases.get(upper)


def unknown_carrier(aliases: Mapping[str, str]) -> str:
    """The rule a carrier field breaks, in words; the label goes in front."""
    accepted = ", ".join((*CARRIER_NAMES, *sorted(aliases)))
    return f"must be a carrier abbreviation: {accepted}"


def carrier_problem(code: str, aliases: Mapping[str, str], *, label: str = "Carrier") -> str | None:
    """The field's message when `code` names no carrier (directly or by an alias), else None."""
    return None if canonical(code, aliases) is not None else f"{label} {unknown_carrier(aliases)}"


def resolve_carrier(code: str, aliases: Mapping[str, str], *, label: str = "Carrier") -> str:
    """The abbreviation `code` names, or the field's refusal."""
    found = canonical(code, aliases)
    if found is None:
        raise refuse(f"{label} {unknown_carrier(aliases)}")
    return found


JsonSchema = dict[str, object]
Check = Callable[[str], str]


def fail(message: str) -> PydanticCustomError:
    return PydanticCustomError("rule", message)


def passes(test: Callable[[str], object], message: str) -> Check:
    """The check that lets a value `test` holds for through, and refuses any other with `message`."""

    def check(value: str) -> str:
        if not test(value):
            raise fail(message)
        return value

    return check


def blank() -> PydanticCustomError:
    """Channels send "" for a field they have no value for: that is a missing field, not a bad one."""
    return PydanticCustomError("blank", "is required")


def number_or_string(value: object) -> object:
    """Samples send some ids and OTPs as JSON numbers; bool is an int in Python but never an id."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


NUMBER_AS_TEXT = BeforeValidator(number_or_string)


# Metadata is hashed by identity (eq=False): a union of Annotated types hashes its members' metadata.
@dataclass(frozen=True, eq=False)
class Checked(GroupedMetadata):
    """A required, trimmed string passed through `check` (which raises `fail(...)`); blank is missing.
    With `numbers`, a JSON number is taken as its text."""

    check: Check
    schema: JsonSchema | None = None
    numbers: bool = False

    def __iter__(self) -> Iterator[object]:
        if self.numbers:
            yield NUMBER_AS_TEXT
        yield StringConstraints(strip_whitespace=True)
        yield AfterValidator(self._required)
        if self.schema:
            yield WithJsonSchema(self.schema)

    def _required(self, value: str) -> str:
        if value == "":
            raise blank()
        return self.check(value)


def rule(pattern: str, message: str, *, example: str | None = None) -> Checked:
    """A required string matching `pattern` entirely; `message` says the rule in words."""
    schema: JsonSchema = {"type": "string", "pattern": f"^(?:{pattern})$", "description": message}
    if example is not None:
        schema["examples"] = [example]
    return Checked(passes(re.compile(pattern).fullmatch, message), schema)


def text(limit: int, *, numbers: bool = False) -> Checked:
    """Trimmed, required text of at most `limit` characters (the column it is stored in, or a sane bound)."""
    return Checked(max_length(limit), {"type": "string", "maxLength": limit}, numbers=numbers)


@dataclass(frozen=True, eq=False)
class Listed(GroupedMetadata):
    """A required list of 1 to `most` strings, each trimmed and passed through `check`; a failure names the
    entry's position (`Receiver email #2 must be …`). An empty list is a missing field."""

    check: Check
    most: int
    item_schema: JsonSchema = field(default_factory=dict)

    def __iter__(self) -> Iterator[object]:
        # The length is checked before any entry is looked at.
        yield Field(max_length=self.most)
        yield AfterValidator(self._each)
        yield WithJsonSchema({"type": "array", "items": self.item_schema, "minItems": 1, "maxItems": self.most})

    def _each(self, values: list[str]) -> list[str]:
        if not values:
            raise blank()
        accepted = []
        for position, value in enumerate(values, start=1):
            if not value.strip():
                raise fail(f"#{position} must be non-empty text")
            try:
                accepted.append(self.check(value.strip()))
            except PydanticCustomError as problem:
                raise fail(f"#{position} {problem.message()}") from None
        return accepted


@dataclass(frozen=True, eq=False)
class Plain(GroupedMetadata):
    """A value checked as a whole by `check` (which sees what was sent, of any JSON type)."""

    check: Callable[[object], object]
    schema: JsonSchema

    def __iter__(self) -> Iterator[object]:
        yield PlainValidator(self.check)
        yield WithJsonSchema(self.schema)


def luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def with_check_digit(stem: str) -> str:
    """`stem` and the Luhn check digit that makes it valid."""
    return next(stem + digit for digit in "0123456789" if luhn_ok(stem + digit))


def max_length(limit: int) -> Check:
    return passes(lambda value: len(value) <= limit, f"must be at most {limit:,} characters")


def in_range(low: int, high: int, what: str) -> Check:
    def check(value: str) -> str:
        try:
            number = Decimal(value)
        except InvalidOperation:
            raise fail(f"must be a decimal number between {low} and {high}") from None
        if not number.is_finite() or not low <= number <= high:
            raise fail(f"must be a {what} between {low} and {high}")
        return value

    return check


def ip_address(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise fail("must be a valid IPv4 or IPv6 address") from None


def past_date(value: str) -> str:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise fail("must be a real date in the form YYYY-MM-DD") from None
    if len(value) != 10 or day >= date.today():
        raise fail("must be a real date in the form YYYY-MM-DD, in the past")
    return value


def digits_with_check(pattern: str, message: str) -> Check:
    compiled = re.compile(pattern)
    return passes(lambda value: compiled.fullmatch(value) and luhn_ok(value), message)


def card_number(value: str) -> str:
    digits = value.replace(" ", "").replace("-", "")
    return digits_with_check(r"\d{12,19}", "must be a valid card number")(digits)


EMAIL = re.compile(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
email = passes(lambda value: len(value) <= 254 and EMAIL.fullmatch(value), "must be a valid e-mail address")


def numeric(value: str) -> str:
    # ASCII digits only ("²".isdigit() is true), and few enough to fit the database's integer ids.
    if not re.fullmatch(r"[0-9]+", value):
        raise fail("must be numeric")
    if len(value.lstrip("0")) > 9:
        raise fail("must be at most 9 digits")
    return value


NAME_CHARACTERS = "may contain only English letters, spaces, apostrophes, accents grave and hyphens"


def name_with_letters(minimum: int) -> Check:
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


def esn(value: str) -> str:
    """A SIM (ICCID), an IMEI, a MEID (14 hex) or an ESN (8 hex or 11 digits)."""
    upper = value.upper()
    if re.fullmatch(r"89\d{16,20}|\d{15}", upper) and luhn_ok(upper):
        return upper
    if re.fullmatch(r"[0-9A-F]{14}|[0-9A-F]{8}|\d{11}|\d{18}", upper):
        return upper
    raise fail("must be a valid SIM, IMEI, MEID or ESN")


def carrier(value: str) -> str:
    # The syntax only: whether the code names a carrier depends on the deployment's LINEUP_CARRIER_ALIASES,
    # which the operation resolves (resolve_carrier above), with the same words.
    upper = value.upper()
    if not re.fullmatch(r"[A-Z0-9]{1,32}", upper):
        raise fail(unknown_carrier({}))
    return upper


def port_carrier(value: str) -> str:
    upper = value.upper()
    if upper.isdigit() or upper in ("SPR", "TMB", "VER", "ATT"):
        return upper
    raise fail("must be a numeric carrier id or one of SPR, TMB, VER, ATT")


# Controls (C0, DEL, C1) and lone surrogates: no header can carry them, and UTF-8 cannot encode a surrogate.
UNSENDABLE = frozenset(("Cc", "Cs"))


def single_line(limit: int) -> Check:
    """Text that goes into a mail header: a line break there would start a header of the sender's choosing."""

    def check(value: str) -> str:
        # Python's mail headers (and many readers) break lines at every character str.splitlines() knows:
        # U+2028, U+2029 and U+0085 as much as CR and LF; such a subject could never be sent.
        if len(f"{value}.".splitlines()) > 1:
            raise fail("must not contain line breaks")
        if any(unicodedata.category(char) in UNSENDABLE for char in value):
            raise fail("must not contain control characters")
        if len(value) > limit:
            raise fail(f"must be at most {limit} characters")
        return value

    return check


def encoded_size(limit: int) -> Check:
    return passes(lambda value: len(value.encode()) <= limit, f"must be at most {limit // 1024} KiB")


def secret(value: object) -> str:
    """A password as typed: never trimmed (a space may be part of it), never empty, short enough to hash."""
    if value is None or value == "":
        raise blank()
    if not isinstance(value, str):
        raise fail("must be text")
    if len(value) > 128:
        raise fail("must be at most 128 characters")
    return value


US_STATES = frozenset((
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY",
    "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH",
    "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "AS", "GU", "MP",
    "PR", "VI", "UM",
))  # fmt: skip


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
Raw32 = Annotated[str, NUMBER_AS_TEXT, StringConstraints(max_length=32)]
Raw64 = Annotated[str, StringConstraints(max_length=64)]
Raw100 = Annotated[str, NUMBER_AS_TEXT, StringConstraints(max_length=100)]
Raw128 = Annotated[str, StringConstraints(max_length=128)]

Numeric = Annotated[str, Checked(numeric, numbers=True)]


def customer_number(value: str) -> str:
    """Its digits without leading zeros: the text the customer id is stored and looked up as."""
    return str(int(numeric(value)))


# decisions.md, "Customer ids": the original answers them as JSON numbers and its apps decode integers, so the
# document types them so; a request may still send the digits as a string, as the web channels do.
CUSTOMER_ID_SCHEMA: JsonSchema = {
    "type": "integer",
    "minimum": 0,
    "maximum": 999_999_999,
    "description": "a number (a string of digits is accepted too)",
    "examples": [482913567],
}
CustomerId = Annotated[str, Checked(customer_number, CUSTOMER_ID_SCHEMA, numbers=True)]
Zip5 = Annotated[str, rule(r"\d{5}", "must be exactly 5 digits", example="30301")]
Zip5to8 = Annotated[str, rule(r"\d{5,8}", "must be 5 to 8 digits", example="30301")]
Phone10 = Annotated[str, rule(r"\d{10}", "must be exactly 10 digits", example="4045550123")]
Ssn4 = Annotated[str, rule(r"\d{4}", "must be exactly 4 digits", example="1234")]
TransactionId = Annotated[
    str, rule(r"[A-Za-z0-9]{1,64}", "must be letters and digits only, at most 64", example="ORD20261121A1")
]
REFERENCE_RULE = "must be 1 to 255 letters, digits and _ . : - (the processor's reference)"
_REFERENCE = re.compile(r"[A-Za-z0-9_.:\-]{1,255}")


def processor_reference(value: str) -> str:
    """A processor's reference in the one form it is stored and compared in: `ch_abc`, `ch_abc.` and `CH_abc` are
    one payment. Trailing dots (a reference copied from the end of a sentence) are trimmed, and the kind before the
    first underscore (`ch`, `pi`, `pm`: lower case at every processor that writes one) is case-folded; the rest is
    the processor's own id, where case matters (`ch_abc` and `ch_ABC` are two charges)."""
    if not _REFERENCE.fullmatch(value) or not (trimmed := value.rstrip(".")):
        raise fail(REFERENCE_RULE)
    kind, underscore, rest = trimmed.partition("_")
    return f"{kind.lower()}_{rest}" if underscore else trimmed


# A payment processor's reference as it gives it (ch_…, pi_…, pm_…; decisions.md "External payment references"),
# taken in the form it is stored and compared in (processor_reference).
REFERENCE_SCHEMA: JsonSchema = {
    "type": "string",
    "pattern": f"^(?:{_REFERENCE.pattern})$",
    "description": f"{REFERENCE_RULE}; taken without trailing dots and with the part before the first _ in lower case",
    "examples": ["ch_3P0kXa2eZvKYlo2C1aBcDeFg"],
}
ProcessorReference = Annotated[str, Checked(processor_reference, REFERENCE_SCHEMA)]
Alnum = Annotated[str, rule(r"[A-Za-z0-9]{1,24}", "must be letters and digits only", example="EA1B2C3D4E5F6G7H")]

NAME_SCHEMA: JsonSchema = {"type": "string", "pattern": "^[A-Za-z '`-]{1,50}$", "description": NAME_CHARACTERS}
PersonName = Annotated[str, Checked(name_with_letters(0), NAME_SCHEMA | {"examples": ["Mary-Jane"]})]
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
CARRIER_SCHEMA: JsonSchema = {"type": "string", "examples": ["TMB"], "description": "a carrier abbreviation or alias"}
CarrierCode = Annotated[str, Checked(carrier, CARRIER_SCHEMA, numbers=True)]
CardHolder = Annotated[
    str, rule(r"[A-Za-z .'`-]{2,100}", "may contain only letters, spaces and . ' ` -", example="Pat Q Doe")
]
# A JSON number too: the old account of a number Lineup holds is its customer id, which answers give as a number.
AccountNumber = Annotated[
    str, replace(rule(r"[A-Za-z0-9-]{1,30}", "must be letters, digits and hyphens, at most 30"), numbers=True)
]
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
ZeroOne = Annotated[Literal["0", "1"], NUMBER_AS_TEXT]  # samples send 0/1 as numbers too
Secret = Annotated[str, Plain(secret, {"type": "string", "format": "password"})]

NOT_TEXT = "must be valid text (it holds characters that are not Unicode)"
# PostgreSQL's text cannot hold U+0000 (SQLite can): refused as sent, on every engine, never met as a 500.
NUL_TEXT = "must be valid text (it holds the NUL character, which cannot be stored)"
MEMBER_NAME = "member_name"  # where a key that cannot be taken is reported: the key itself cannot be shown
Place = tuple[str | int, ...]


def text_problem(value: str) -> str | None:
    """Why this text cannot be taken (a NUL, a lone surrogate, which has no UTF-8 form), or None."""
    if "\x00" in value:
        return NUL_TEXT
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return NOT_TEXT
    return None


def text_problems(value: object) -> Iterator[tuple[Place, str]]:
    """Every string in `value` that cannot be taken, at its place: nested lists and objects alike, their keys too
    (a key is reported at MEMBER_NAME beside the members it is among). A string in a list is reported at the list:
    `Receiver name must be …`. Walked with a stack of its own: a body as deep as json allows cannot overflow it."""
    pending: list[tuple[Place, object]] = [((), value)]
    while pending:
        place, found = pending.pop()
        if isinstance(found, str):
            if (problem := text_problem(found)) is not None:
                yield (place[:-1] if place and isinstance(place[-1], int) else place), problem
        elif isinstance(found, list | tuple):
            pending.extend(((*place, index), item) for index, item in reversed(list(enumerate(found))))
        elif isinstance(found, dict):
            for key, item in reversed(list(found.items())):
                problem = text_problem(key) if isinstance(key, str) else None
                if problem is not None:
                    pending.append(((*place, MEMBER_NAME), key))
                else:
                    pending.append(((*place, key), item))


# Validation context: the body's raw bytes held no escape and no byte a surrogate's UTF-8 form starts with, so none
# of its strings can hold a NUL or a lone surrogate (JSON has no raw NUL in a string) and the walk is skipped.
PLAIN_TEXT = "plain_text"


def plain_text(raw: bytes) -> bool:
    """True when no string parsed from this JSON body can hold a NUL or a lone surrogate: no `\\u` escape, and no
    0xED byte (the UTF-8 form of a surrogate begins with it; so do some Hangul syllables, whose bodies are walked)."""
    return b"\\u" not in raw and b"\xed" not in raw


def malformed(value: object) -> bool:
    """True when `value` (text, or lists and objects of it) holds text that cannot be taken (text_problem)."""
    return next(text_problems(value), None) is not None


class WellFormedText(BaseModel):
    """Every string of what is sent, at any depth and in any key, must be text the database can store: checked
    on the body itself before any field is, so a NUL or a lone surrogate is the field's error (named by its place,
    `Line 2: Model Id must be valid text …`) and never reaches a lookup, a column or a log of the engine."""

    @model_validator(mode="wrap")
    @classmethod
    def _storable(
        cls, data: object, handler: ModelWrapValidatorHandler[Self], info: ValidationInfo[Mapping[str, object] | None]
    ) -> Self:
        if isinstance(data, dict) and not (info.context or {}).get(PLAIN_TEXT):
            problems: list[InitErrorDetails] = [
                {"type": PydanticCustomError("rule", problem), "loc": place, "input": "…"}
                for place, problem in dict.fromkeys(text_problems(data))
            ]
            if problems:
                raise ValidationError.from_exception_data(cls.__name__, problems)
        return handler(data)


@cache
def optional_names(model: type[BaseModel]) -> frozenset[str]:
    """Every name an optional field of `model` is accepted by: its own, its alias and each top-level validation
    alias (computed once per model)."""
    names: set[str] = set()
    for name, info in model.model_fields.items():
        if info.is_required():
            continue
        names |= {name, info.alias} if info.alias else {name}
        alias = info.validation_alias
        for choice in alias.choices if isinstance(alias, AliasChoices) else [alias] if alias is not None else []:
            if isinstance(choice, str):
                names.add(choice)
            elif isinstance(choice, AliasPath) and len(choice.path) == 1 and isinstance(choice.path[0], str):
                names.add(choice.path[0])
    return frozenset(names)


class BlankIsAbsent(WellFormedText):
    @model_validator(mode="before")
    @classmethod
    def _drop_blank_optionals(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        optional = optional_names(cls)
        return {
            key: value
            for key, value in data.items()
            if not (key in optional and isinstance(value, str) and not value.strip())
        }


def sent(data: Mapping[str, object], *names: str) -> bool:
    """True when any of `names` (a field and its aliases) carries a value; blank text is not a value."""
    values = [data.get(name) for name in names]
    return any(value is not None and not (isinstance(value, str) and not value.strip()) for value in values)


class ConditionalFields(BaseModel):
    """Subclasses say which fields each rule needs; a missing one is reported as `X is required for …`."""

    @classmethod
    def required_when(cls, data: Mapping[str, object]) -> dict[str, list[str]]:
        """{reason: the fields that reason needs and that were not sent}; the reason "" is the usual case,
        whose fields are reported as plainly missing."""
        return {}

    @model_validator(mode="wrap")
    @classmethod
    def _conditional_fields(cls, data: object, handler: ModelWrapValidatorHandler[Self]) -> Self:
        found = cls.required_when(data) if isinstance(data, dict) else {}
        missing = {reason: fields for reason, fields in found.items() if fields}
        required = PydanticCustomError("required_when", "{problems}", {"problems": missing})
        try:
            model = handler(data)
        except ValidationError as error:
            if not missing:
                raise
            # Each field's problem raised again as it was (type, place, context), beside the conditional rules.
            again: list[InitErrorDetails] = [
                {"type": PydanticCustomError(p["type"], p["msg"], p.get("ctx")), "loc": p["loc"], "input": p["input"]}
                for p in error.errors()
            ]
            again.append({"type": required, "input": data})
            raise ValidationError.from_exception_data(error.title, again) from None
        if missing:
            raise required
        return model


class ActionRequest(BlankIsAbsent):
    """Unknown fields are ignored, as the original does; `action` itself was resolved before the model is."""

    model_config = ConfigDict(extra="ignore")

    source: Text32 | None = Field(default=None, examples=["API"])
    agent_id: Raw100 | None = Field(default=None, examples=["demo.agent"])
    agent_password: Raw128 | None = None
    external_transaction_id: TransactionId | None = None  # echoed back; the request's idempotency key
    request_name: Text64 | None = None
    sub_source: Text64 | None = None
