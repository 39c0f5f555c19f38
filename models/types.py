"""Reusable constrained types. Each failure carries a rule message; the API prefixes the field's label."""

from __future__ import annotations

import ipaddress
import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, StringConstraints, WithJsonSchema
from pydantic_core import PydanticCustomError

US_STATES = frozenset(
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC "
    "ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI UM".split()
)


def fail(message: str) -> PydanticCustomError:
    return PydanticCustomError("rule", message)


def blank() -> PydanticCustomError:
    """Channels send "" for a field they have no value for: that is a missing field, not a bad one."""
    return PydanticCustomError("blank", "is required")


def rule(pattern: str, message: str, *, example: str | None = None, strip: bool = True) -> Any:
    """A required string matching `pattern` entirely; `message` says the rule in words."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if value == "":
            raise blank()
        if not compiled.fullmatch(value):
            raise fail(message)
        return value

    schema: dict[str, Any] = {"type": "string", "pattern": f"^{pattern}$", "description": message}
    if example is not None:
        schema["examples"] = [example]
    return Annotated[str, StringConstraints(strip_whitespace=strip), AfterValidator(check), WithJsonSchema(schema)]


def _required_text(value: str) -> str:
    if not value.strip():
        raise blank()
    return value.strip()


def _number_or_string(value: Any) -> Any:
    # Samples send some ids as JSON numbers; bool is an int in Python but never an id.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _in_range(low: int, high: int, what: str) -> Any:
    def check(value: str) -> str:
        if value == "":
            raise blank()
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


Text = Annotated[str, AfterValidator(_required_text)]
NumOrStr = Annotated[str, BeforeValidator(_number_or_string)]
Digits = rule(r"\d+", "must contain digits only")
Zip5 = rule(r"\d{5}", "must be exactly 5 digits", example="30301")
Zip5to8 = rule(r"\d{5,8}", "must be 5 to 8 digits", example="30301")
Phone10 = rule(r"\d{10}", "must be exactly 10 digits", example="4045550123")
Ssn4 = rule(r"\d{4}", "must be exactly 4 digits", example="1234")
Alnum = rule(r"[A-Za-z0-9]+", "must contain letters and digits only", example="EA1B2C3D4E5F")
PersonName = rule(
    r"[A-Za-z '`-]{1,50}",
    "may contain only English letters, spaces, apostrophes, accents grave and hyphens, at most 50",
    example="Mary-Jane",
)
City = rule(r"[A-Za-z -]{1,60}", "may contain only letters, spaces and hyphens", example="Atlanta")
AddressLine = rule(r"[A-Za-z0-9 /#.,'-]{1,100}", "may contain letters, digits, spaces and / # - . , '")
State = Annotated[str, StringConstraints(strip_whitespace=True, max_length=2), AfterValidator(_state)]
Latitude = Annotated[NumOrStr, StringConstraints(strip_whitespace=True), AfterValidator(_in_range(-90, 90, "latitude"))]
Longitude = Annotated[
    NumOrStr, StringConstraints(strip_whitespace=True), AfterValidator(_in_range(-180, 180, "longitude"))
]
IpAddress = Annotated[str, StringConstraints(strip_whitespace=True), AfterValidator(_ip)]
PastDate = Annotated[str, AfterValidator(_past_date)]
YesNo = Literal["Y", "N", ""]
Otp = Annotated[NumOrStr, AfterValidator(_required_text)]
