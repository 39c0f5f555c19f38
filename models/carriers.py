"""The carriers Lineup sells on, and the vendor carrier codes (LINEUP_CARRIER_ALIASES) channels of the
original service send in their place (`BLUECONNECTSATT` for ATT, `NEXUS` for TMB, …)."""

from __future__ import annotations

from collections.abc import Mapping

from models.errors import refuse

CARRIER_NAMES: dict[str, str] = {
    "ATT": "AT&T Mobility",
    "TMB": "T-Mobile USA",
    "VER": "Verizon Wireless",
    "SPR": "Sprint",
    "TMBRLY": "T-Mobile (reseller)",
    "USC": "UScellular",
}
CARRIERS = tuple(CARRIER_NAMES)


def parse_aliases(text: str) -> dict[str, str]:
    """`CODE:ABBR,CODE:ABBR` as {CODE: ABBR}; an alias naming no known carrier is a configuration error."""
    aliases: dict[str, str] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        code, _, abbreviation = pair.partition(":")
        code, abbreviation = code.strip().upper(), abbreviation.strip().upper()
        if not code or abbreviation not in CARRIER_NAMES:
            raise ValueError(f"carrier alias {pair!r} must be CODE:ABBREVIATION with one of {', '.join(CARRIERS)}")
        aliases[code] = abbreviation
    return aliases


def canonical(code: str, aliases: Mapping[str, str]) -> str | None:
    """The carrier abbreviation a code names (itself, or through an alias); None for an unknown code."""
    upper = code.strip().upper()
    return upper if upper in CARRIER_NAMES else aliases.get(upper)


def unknown_carrier(aliases: Mapping[str, str]) -> str:
    """The rule a carrier field breaks, in words; the label goes in front."""
    accepted = ", ".join((*CARRIERS, *sorted(aliases)))
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
