"""A carrier field as the operation uses it: the abbreviation it names, directly or through the
deployment's LINEUP_CARRIER_ALIASES."""

from __future__ import annotations

from models.carriers import canonical, unknown_carrier
from models.errors import refuse
from models.settings import Settings


def carrier_problem(code: str, settings: Settings, *, label: str = "Carrier") -> str | None:
    """The field's message when `code` names no carrier, else None."""
    aliases = settings.systems.carrier_alias_map
    return None if canonical(code, aliases) is not None else f"{label} {unknown_carrier(aliases)}"


def resolve_carrier(code: str, settings: Settings, *, label: str = "Carrier") -> str:
    """The abbreviation `code` names, or the field's refusal."""
    if problem := carrier_problem(code, settings, label=label):
        raise refuse(problem)
    found = canonical(code, settings.systems.carrier_alias_map)
    assert found is not None
    return found
