"""US ZIP codes: their state, their city as USPS writes it, the other city names USPS accepts for them, and
whether the service is sold there. The data is the `zipcodes` package's (rebuilt monthly from USPS's ZIP Locale
Detail, compiled into its wheel: offline), indexed once per process; Lineup keeps no ZIP table of its own."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import zipcodes

# ZIP codes where a line is not sold: a military post office (APO/FPO/DPO) has no service address, and a
# unique ZIP belongs to one organization's mail room (the IRS at 00501). Both are still real ZIP codes.
UNSERVED_KINDS = frozenset({"MILITARY", "UNIQUE"})


@dataclass(frozen=True)
class ZipArea:
    """One active ZIP code as USPS lists it."""

    zip_code: str
    city: str  # USPS's preferred city name, in capitals
    state: str  # two letters: a state, DC, a territory, or AA/AE/AP for military mail
    cities: frozenset[str]  # every name USPS accepts for the ZIP's addresses (the preferred one too), in capitals
    kind: str  # STANDARD, PO BOX, UNIQUE or MILITARY

    @property
    def served(self) -> bool:
        return self.kind not in UNSERVED_KINDS


@cache
def _areas() -> dict[str, ZipArea]:
    """Every active ZIP code, read once (about 42,000; the package decompresses its data on first use)."""
    areas: dict[str, ZipArea] = {}
    # The package's Python face is unannotated (its typed stub covers the private extension): each member is
    # read through str() below.
    for record in zipcodes.list_all():  # type: ignore[no-untyped-call]
        if not record["active"]:  # retired by USPS: no address has it any more
            continue
        city = str(record["city"]).upper()
        accepted = {str(name).upper() for name in record["acceptable_cities"]}
        zip_code = str(record["zip_code"])
        areas[zip_code] = ZipArea(
            zip_code=zip_code,
            city=city,
            state=str(record["state"]),
            cities=frozenset({city, *accepted}),
            kind=str(record["zip_code_type"]),
        )
    return areas


def zip_area(zip_code: str) -> ZipArea | None:
    """The ZIP code's area; None for one USPS does not list (or no longer uses)."""
    return _areas().get(zip_code)


def state_of_zip(zip_code: str) -> str | None:
    """The state of a ZIP code where the service is sold; None outside it (unknown, military or unique)."""
    area = zip_area(zip_code)
    return area.state if area is not None and area.served else None


def city_of_zip(zip_code: str) -> str:
    """The ZIP code's city as USPS names it; "" for a ZIP code it does not list."""
    area = zip_area(zip_code)
    return area.city if area is not None else ""


def outside_state(zip_code: str, state: str) -> str | None:
    """Why `zip_code` cannot be an address in `state` (it is unknown, or another state's); None when it can."""
    area = zip_area(zip_code)
    if area is None:
        return f"{zip_code} is not a US ZIP code"
    if area.state != state.upper():
        return f"{zip_code} is in {area.state}, not {state.upper()}"
    return None
