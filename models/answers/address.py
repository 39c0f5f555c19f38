"""`data` of the address domain: a ZIP code's city and state, and a standardized address."""

from __future__ import annotations

from models.answers.base import Shape


class CityState(Shape):
    zip_code: str
    city: str  # in capitals, as USPS writes it
    state: str


class StandardizedAddress(Shape):
    address_one: str
    address_two: str | None
    city: str
    state: str
    zip_code: str


CITY_STATE = CityState(zip_code="30303", city="ATLANTA", state="GA")
STANDARDIZED = StandardizedAddress(
    address_one="12 MAIN ST", address_two="APT 4B", city="ATLANTA", state="GA", zip_code="30303"
)
