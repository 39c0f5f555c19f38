"""US ZIP codes: their state, their city as USPS writes it, the other city names USPS accepts for them, and
whether the service is sold there. The data is the `zipcodes` package's (rebuilt monthly from USPS's ZIP Locale
Detail, compiled into its wheel: offline), indexed once per process; Lineup keeps no ZIP table of its own."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import zipcodes
from pydantic import Field
from scourgify import normalize_address_record
from scourgify.exceptions import AddressNormalizationError

from models.envelope import Shape, refuse
from models.types import ActionRequest, AddressLine, City, State, Zip5

# ZIP codes where a line is not sold: a military post office (APO/FPO/DPO) has no service address, and a
# unique ZIP belongs to one organization's mail room (the IRS at 00501). Both are still real ZIP codes.
UNSERVED_KINDS = frozenset({"MILITARY", "UNIQUE"})
INVALID_ZIP = "Invalid zip code"
UNREADABLE = "Address one could not be read as a street address (house number and street name)"
# Publication 28 (213.1): with a unit designator, no pound sign (`APT # 4` is `APT 4`); `# 4` alone keeps it.
DESIGNATED_POUND = re.compile(r"^([A-Z]+) # ")


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


class GetCityState(ActionRequest):
    """The city and state of a ZIP code, as USPS writes them."""

    zip_code: Zip5


class AddressValidationUsps(ActionRequest):
    """A street address standardized by USPS Publication 28, its ZIP code checked against its state and city."""

    address_one: AddressLine
    address_two: AddressLine | None = None
    city: City
    state: State
    zip_code: Zip5

    def __repr__(self) -> str:  # a customer's address: never in a log line
        return "AddressValidationUsps(…)"


class CityState(Shape):
    zip_code: str
    city: str  # in capitals, as USPS writes it
    state: str


class StandardizedAddress(Shape):
    """Lineup's keys, and the same address under USPS Web Tools' verify answer's keys, which the original passes
    through and its native apps read (decisions.md): there Address1 is the unit line and Address2 the street."""

    address_one: str
    address_two: str | None
    city: str
    state: str
    zip_code: str
    Address1: str = Field(description='USPS\'s name for the unit line (address_two), "" when there is none')
    Address2: str = Field(description="USPS's name for the street line (address_one)")
    City: str
    State: str
    Zip5: str
    Zip4: str = Field(description='the ZIP+4 add-on, "" when not known')

    @classmethod
    def of(cls, *, street: str, unit: str | None, city: str, state: str, zip_code: str) -> StandardizedAddress:
        return cls(
            address_one=street,
            address_two=unit,
            city=city,
            state=state,
            zip_code=zip_code,
            Address1=unit or "",
            Address2=street,
            City=city,
            State=state,
            Zip5=zip_code,
            Zip4="",  # the ZIP data has no ZIP+4 ranges: only USPS's own lookup knows them
        )


CITY_STATE = CityState(zip_code="30303", city="ATLANTA", state="GA")
STANDARDIZED = StandardizedAddress.of(street="12 MAIN ST", unit="APT 4B", city="ATLANTA", state="GA", zip_code="30303")


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


def standardized(address: AddressValidationUsps) -> StandardizedAddress:
    """The address as USPS writes it; refused with why for an unknown ZIP, a ZIP of another state, a city that is
    not one of the ZIP's, or a first line that is not a house number and a street (a PO Box is not)."""
    zip_code, state, city = address.zip_code, address.state.upper(), address.city.upper()
    area = zip_area(zip_code)
    if area is None:
        raise refuse(INVALID_ZIP)
    if area.state != state:
        raise refuse(f"Zip code {zip_code} is in {area.state}, not {state}")
    if city not in area.cities:
        raise refuse(f"City {city} is not a city of zip code {zip_code} ({', '.join(sorted(area.cities))})")
    try:
        record = normalize_address_record(
            {
                "address_line_1": address.address_one,
                "address_line_2": address.address_two,
                "city": address.city,
                "state": area.state,
                "postal_code": zip_code,
            }
        )
    except AddressNormalizationError:
        raise refuse(UNREADABLE) from None
    line_two = record.get("address_line_2")
    return StandardizedAddress.of(
        street=str(record["address_line_1"]),
        unit=DESIGNATED_POUND.sub(r"\1 ", str(line_two)) if line_two else None,
        city=area.city,  # an accepted name becomes the preferred one, as USPS's own standardization answers
        state=area.state,
        zip_code=zip_code,
    )


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
        areas[str(record["zip_code"])] = ZipArea(
            zip_code=str(record["zip_code"]),
            city=city,
            state=str(record["state"]),
            cities=frozenset({city, *accepted}),
            kind=str(record["zip_code_type"]),
        )
    return areas
