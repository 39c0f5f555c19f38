"""Street addresses standardized by USPS Publication 28 (capitals, street suffixes, directionals and unit
designators abbreviated: `12 main street apartment 4` → `12 MAIN ST APT 4`), by usaddress-scourgify, and
checked against the ZIP code's own state and city names (models.geography)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scourgify import normalize_address_record
from scourgify.exceptions import AddressNormalizationError

from models.geography import zip_area

INVALID_ZIP = "Invalid zip code"
UNREADABLE = "Address one could not be read as a street address (house number and street name)"
# Publication 28 (213.1): with a unit designator, no pound sign (`APT # 4` is `APT 4`); `# 4` alone keeps it.
DESIGNATED_POUND = re.compile(r"^([A-Z]+) # ")


class AddressRefused(ValueError):
    """Why an address cannot be standardized, in words a channel can show."""


@dataclass(frozen=True)
class StandardAddress:
    address_one: str
    address_two: str | None
    city: str
    state: str
    zip_code: str


def standardized(*, address_one: str, address_two: str | None, city: str, state: str, zip_code: str) -> StandardAddress:
    """The address as USPS writes it, or AddressRefused: an unknown ZIP, a ZIP of another state, a city that is
    not one of the ZIP's, or a first line that is not a house number and a street (a PO Box is not)."""
    area = zip_area(zip_code)
    if area is None:
        raise AddressRefused(INVALID_ZIP)
    if area.state != state.upper():
        raise AddressRefused(f"Zip code {zip_code} is in {area.state}, not {state.upper()}")
    if city.upper() not in area.cities:
        names = ", ".join(sorted(area.cities))
        raise AddressRefused(f"City {city.upper()} is not a city of zip code {zip_code} ({names})")
    try:
        record = normalize_address_record(
            {
                "address_line_1": address_one,
                "address_line_2": address_two,
                "city": city,
                "state": area.state,
                "postal_code": zip_code,
            }
        )
    except AddressNormalizationError:
        raise AddressRefused(UNREADABLE) from None
    line_two = record.get("address_line_2")
    return StandardAddress(
        address_one=str(record["address_line_1"]),
        address_two=DESIGNATED_POUND.sub(r"\1 ", str(line_two)) if line_two else None,
        city=area.city,  # an accepted name becomes the preferred one, as USPS's own standardization answers
        state=area.state,
        zip_code=zip_code,
    )
