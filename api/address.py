"""The address domain (`/address`): get_city_state and address_validation_usps, answered from the ZIP data and
the USPS Publication 28 standardizer in models (no outside system, so no workflow). Sources as the interface's
other address-bearing operations (nlad_etc_check): API, TABLET, WEBSITE, the mobile channels' own."""

from __future__ import annotations

from api.dispatch import Context, action
from models.address import (
    CITY_STATE,
    INVALID_ZIP,
    STANDARDIZED,
    AddressValidationUsps,
    CityState,
    GetCityState,
    StandardizedAddress,
    standardized,
    zip_area,
)
from models.envelope import refuse


@action("address", example=CITY_STATE)
async def get_city_state(*, body: GetCityState, ctx: Context) -> CityState:
    """The ZIP code's city (USPS's preferred name, in capitals) and state; a ZIP USPS does not list is refused."""
    area = zip_area(body.zip_code)
    if area is None:
        raise refuse(INVALID_ZIP)
    return CityState(zip_code=area.zip_code, city=area.city, state=area.state)


@action("address", example=STANDARDIZED)
async def address_validation_usps(*, body: AddressValidationUsps, ctx: Context) -> StandardizedAddress:
    """The address standardized by USPS Publication 28 (`12 main street` → `12 MAIN ST`); a ZIP outside the
    state, a city that is not one of the ZIP's, or a first line that is no street address is refused with why."""
    return standardized(body)
