"""The machinery behind models.types: pydantic metadata that trims, checks and documents a field, and the
checks themselves. Each failure carries a rule message; the API prefixes the field's label."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from annotated_types import GroupedMetadata
from pydantic import AfterValidator, BeforeValidator, Field, PlainValidator, StringConstraints, WithJsonSchema
from pydantic_core import PydanticCustomError

from models.carriers import unknown_carrier

JsonSchema = dict[str, object]
Check = Callable[[str], str]


def fail(message: str) -> PydanticCustomError:
    return PydanticCustomError("rule", message)


def blank() -> PydanticCustomError:
    """Channels send "" for a field they have no value for: that is a missing field, not a bad one."""
    return PydanticCustomError("blank", "is required")


def number_or_string(value: object) -> object:
    """Samples send some ids and OTPs as JSON numbers; bool is an int in Python but never an id."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _required(check: Check) -> Check:
    def required(value: str) -> str:
        if value == "":
            raise blank()
        return check(value)

    return required


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
            yield BeforeValidator(number_or_string)
        yield StringConstraints(strip_whitespace=True)
        yield AfterValidator(_required(self.check))
        if self.schema:
            yield WithJsonSchema(self.schema)


def rule(pattern: str, message: str, *, example: str | None = None) -> Checked:
    """A required string matching `pattern` entirely; `message` says the rule in words."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise fail(message)
        return value

    schema: JsonSchema = {"type": "string", "pattern": f"^(?:{pattern})$", "description": message}
    if example is not None:
        schema["examples"] = [example]
    return Checked(check, schema)


def text(limit: int, *, numbers: bool = False) -> Checked:
    """Trimmed, required text of at most `limit` characters (the column it is stored in, or a sane bound)."""
    return Checked(max_length(limit), {"type": "string", "maxLength": limit}, numbers=numbers)


@dataclass(frozen=True, eq=False)
class Raw(GroupedMetadata):
    """Text taken as sent (a password: no trimming), of at most `limit` characters."""

    limit: int
    numbers: bool = False

    def __iter__(self) -> Iterator[object]:
        if self.numbers:
            yield BeforeValidator(number_or_string)
        yield StringConstraints(max_length=self.limit)


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
        if len(values) > self.most:
            raise fail(f"must hold at most {self.most} entries")
        accepted = []
        for position, value in enumerate(values, start=1):
            if not isinstance(value, str) or not value.strip():
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
    def check(value: str) -> str:
        if len(value) > limit:
            raise fail(f"must be at most {limit:,} characters")
        return value

    return check


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

    def check(value: str) -> str:
        if not compiled.fullmatch(value) or not luhn_ok(value):
            raise fail(message)
        return value

    return check


def card_number(value: str) -> str:
    digits = value.replace(" ", "").replace("-", "")
    return digits_with_check(r"\d{12,19}", "must be a valid card number")(digits)


EMAIL = re.compile(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


def email(value: str) -> str:
    if len(value) > 254 or not EMAIL.fullmatch(value):
        raise fail("must be a valid e-mail address")
    return value


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
    # which the operation resolves (models.carriers.resolve_carrier), with the same words as models.carriers.
    if value == "":
        raise blank()
    if not re.fullmatch(r"[A-Z0-9]{1,32}", value):
        raise fail(unknown_carrier({}))
    return value


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
    def check(value: str) -> str:
        if len(value.encode()) > limit:
            raise fail(f"must be at most {limit // 1024} KiB")
        return value

    return check


def secret(value: object) -> str:
    """A password as typed: never trimmed (a space may be part of it), never empty, short enough to hash."""
    if value is None or value == "":
        raise blank()
    if not isinstance(value, str):
        raise fail("must be text")
    if len(value) > 128:
        raise fail("must be at most 128 characters")
    return value
