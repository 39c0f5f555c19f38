"""Pydantic problems in words a person understands: `Please enter Enrollment Id`, `Service zip must be …`."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError
from pydantic_core import ErrorDetails

LABELS = {
    "ssn": "SSN",
    "port_ssn": "Port SSN",
    "dob": "Date of birth",
    "imei": "IMEI",
    "iccid": "ICCID",
    "uiccid": "UICCID",
    "esn": "ESN",
    "mdn": "MDN",
    "cvv": "CVV",
    "sku_type": "SKU type",
    "query_sim_info": "Query SIM info",
    "exp_month": "Expiry month",
    "exp_year": "Expiry year",
    "address1": "Address line 1",
    "address2": "Address line 2",
    "ip_address": "IP address",
    "login_log_otp": "Login log OTP",
    "agent_change_password": "Agent change password proof",
}


def label(field: str) -> str:
    """`enrollment_id` → `Enrollment Id`; `service_zip` → `Service zip`."""
    if field in LABELS:
        return LABELS[field]
    words = field.split("_")
    if words[-1] == "id":
        return " ".join(word.capitalize() for word in words)
    return " ".join(words).capitalize()


def _place(loc: tuple[int | str, ...]) -> tuple[str, str]:
    """The field's label and, for an element of a list such as `lines`, a `Line 2: ` prefix."""
    parts = list(loc[1:] if loc[:1] == ("body",) else loc)
    prefix, field = "", "body"
    for index, part in enumerate(parts):
        if isinstance(part, int) and index > 0:
            prefix += f"{label(str(parts[index - 1])).rstrip('s')} {part + 1}: "
        elif isinstance(part, str):
            field = part
    return prefix, field


def describe(problem: ErrorDetails) -> list[str]:
    """One pydantic problem as messages; a conditional rule names every field it misses."""
    prefix, _ = _place(tuple(problem.get("loc", ())))
    if problem["type"] == "required_when":
        return [
            message
            for reason, fields in problem["ctx"]["problems"].items()
            for message in _required(prefix, reason, fields)
        ]
    return [_describe_one(problem)]


def _required(prefix: str, reason: str, fields: list[str]) -> list[str]:
    """`Please enter Zip` for a field the usual case needs; `Port SSN is required for a PORTIN activation` for
    one another field's value calls for."""
    if not reason:
        return [f"{prefix}Please enter {label(field)}" for field in fields]
    return [f"{prefix}{_join([label(f) for f in fields])} {'is' if len(fields) == 1 else 'are'} required for {reason}"]


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _describe_one(problem: ErrorDetails) -> str:
    kind = problem["type"]
    if kind == "json_invalid":
        return "Request body is not valid JSON"
    loc = tuple(problem.get("loc", ()))
    prefix, field = _place(loc)
    name = label(field)
    context = problem.get("ctx") or {}
    sent_null = problem.get("input", "") is None and loc and isinstance(loc[-1], str)
    if kind in ("missing", "blank") or sent_null:  # a required field sent as null is missing too
        return f"{prefix}Please enter {name}"
    if kind == "rule":
        # A model-level rule (e.g. an expired card) has no field: its message is a whole sentence. (A field
        # may be named `body` too: send's HTML body.)
        model_level = field == "body" and loc[-1:] != ("body",)
        return f"{prefix}{problem['msg']}" if model_level else f"{prefix}{name} {problem['msg']}"
    if kind == "literal_error":
        expected = context.get("expected", "").replace(chr(39), "")
        return f"{prefix}{name} must be {'one of ' + expected if ',' in expected else expected}"
    if kind in ("too_short", "too_long"):
        return f"{prefix}{name} {_length_rule(context, field)}"
    if kind == "string_too_short":
        return f"{prefix}{name} must be at least {context.get('min_length')} characters"
    if kind == "string_too_long":
        return f"{prefix}{name} must be at most {context.get('max_length')} characters"
    if kind in ("int_parsing", "int_from_float", "int_type"):
        return f"{prefix}{name} must be a whole number"
    if kind in ("greater_than_equal", "less_than_equal"):
        bound = context.get("ge", context.get("le"))
        return f"{prefix}{name} must be {'at least' if kind == 'greater_than_equal' else 'at most'} {bound}"
    if kind == "string_pattern_mismatch":
        return f"{prefix}{name} has an invalid format"
    if kind in ("string_type", "list_type", "dict_type", "model_type", "model_attributes_type"):
        expected = {"string_type": "text", "list_type": "a list"}.get(kind, "an object")
        if loc and isinstance(loc[-1], int):  # an element of a list: `Line 2 must be an object`
            return f"{prefix.removesuffix(': ')} must be {expected}"
        return f"{prefix}{name} must be {expected}"
    return f"{prefix}{name} is invalid"


def _length_rule(context: Mapping[str, object], field: str) -> str:
    """`Lines must hold at least 1 line`: the list's elements are named after the list."""
    low, high = context.get("min_length"), context.get("max_length")
    item, items = (
        (field.removesuffix("s").replace("_", " "), field.replace("_", " "))
        if field.endswith("s")
        else ("entry", "entries")
    )

    def count(number: object) -> str:
        return f"{number} {item if number == 1 else items}"

    if low is not None and high is not None:
        return f"must hold between {low} and {count(high)}"
    if high is not None:
        return f"must hold at most {count(high)}"
    return f"must hold at least {count(low)}"


MOST_ERRORS = 50  # one answer names at most this many problems: a body of 100,000 bad items is one answer


def describe_all(error: ValidationError) -> list[str]:
    """Every problem of a body, in words, each once, at most MOST_ERRORS of them."""
    messages = list(dict.fromkeys(message for problem in error.errors() for message in describe(problem)))
    if len(messages) <= MOST_ERRORS:
        return messages
    return [*messages[:MOST_ERRORS], f"… and {len(messages) - MOST_ERRORS:,} more problems"]
