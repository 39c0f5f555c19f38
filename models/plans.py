"""`plan_id` as make_payment and payment_details take it (decisions.md, "plan_id lists"): an id, a list of ids
(`[101]`), or a list of `{id, no_of_months}`; each a plan paid for that many months (default 1)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, NamedTuple

from pydantic import PlainValidator, WithJsonSchema

from models.rules import blank, fail

MOST_PLANS = 20  # entries of one list: more than an order of LINEUP_MAX_LINES lines needs
MOST_MONTHS = 36
PLAN_LIST_RULE = "must be a plan id or a list of plan ids"


class PlanUnit(NamedTuple):
    """One plan of a payment, paid for `months` months."""

    plan_id: int
    months: int = 1


def _number(value: object, *, most: int) -> int | None:
    """A positive whole number given as a JSON number or its digits, at most `most`; None for anything else."""
    if isinstance(value, bool):
        return None
    text = str(value).strip() if isinstance(value, int | str) else ""
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        return None
    number = int(text)
    return number if 1 <= number <= most else None


def _unit(entry: object) -> PlanUnit:
    if isinstance(entry, dict):
        if set(entry) - {"id", "no_of_months"}:
            raise fail(PLAN_LIST_RULE)
        plan = _number(entry.get("id"), most=999_999_999)
        months = _number(entry.get("no_of_months", 1), most=MOST_MONTHS)
    else:
        plan, months = _number(entry, most=999_999_999), 1
    if plan is None or months is None:
        raise fail(PLAN_LIST_RULE)
    return PlanUnit(plan, months)


def plan_units(value: object) -> tuple[PlanUnit, ...]:
    """The plans a `plan_id` value names; blank is missing, anything else not a plan id or a list of them is
    refused with one message."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise blank()
    if isinstance(value, list):
        if not 1 <= len(value) <= MOST_PLANS:
            raise fail(PLAN_LIST_RULE)
        return tuple(_unit(entry) for entry in value)
    if isinstance(value, dict):  # {id, no_of_months} only inside a list, as the original sends it
        raise fail(PLAN_LIST_RULE)
    return (_unit(value),)


def as_text(units: Iterable[PlanUnit]) -> str:
    """The plans as stored with a payment: `101:3,102:1`."""
    return ",".join(f"{unit.plan_id}:{unit.months}" for unit in units)


def from_text(text: str) -> tuple[PlanUnit, ...]:
    return tuple(PlanUnit(int(plan), int(months)) for plan, months in (item.split(":") for item in text.split(",")))


_ID = {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string", "pattern": "^[0-9]{1,9}$"}]}
PlanIds = Annotated[
    tuple[PlanUnit, ...],
    PlainValidator(plan_units),
    WithJsonSchema(
        {
            "description": f"A plan id, a list of plan ids, or a list of {{id, no_of_months}} (at most {MOST_PLANS})",
            "examples": ["102", [101, 102], [{"id": 101, "no_of_months": 3}]],
            "oneOf": [
                _ID,
                {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MOST_PLANS,
                    "items": {
                        "oneOf": [
                            _ID,
                            {
                                "type": "object",
                                "required": ["id"],
                                "properties": {
                                    "id": _ID,
                                    "no_of_months": {
                                        "oneOf": [
                                            {"type": "integer", "minimum": 1, "maximum": MOST_MONTHS},
                                            {"type": "string", "pattern": "^[0-9]{1,2}$"},
                                        ]
                                    },
                                },
                            },
                        ]
                    },
                },
            ],
        }
    ),
]
