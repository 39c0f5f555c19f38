"""`/address`: get_city_state and address_validation_usps (the original's mobile channels call them before
customer creation). The fields' forms are checked here; whether the ZIP, state and city belong together is the
ZIP data's to say (models.geography), in the operation."""

from __future__ import annotations

from models.requests.base import ActionRequest
from models.types import AddressLine, City, State, Zip5


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
