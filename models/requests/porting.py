"""`/port`: query_portin and update_portin."""

from __future__ import annotations

from pydantic import model_validator
from pydantic_core import PydanticCustomError

from models.requests.base import ActionRequest
from models.types import (
    AccountNumber,
    AccountPin,
    AddressLine,
    Alnum,
    City,
    Esn,
    LastName,
    Mdn,
    PersonName,
    PortCarrier,
    State,
    Zip5,
)

CORRECTIONS = (
    "port_account_number", "port_account_password", "port_first_name", "port_last_name", "port_address_one",
    "port_city", "port_state", "port_zip_code",
)  # fmt: skip


class QueryPortin(ActionRequest):
    """The status of a pending port-in order, named by its enrollment id, ESN/SIM and number together."""

    enroll_id: Alnum
    esn: Esn
    mdn: Mdn
    carrier: PortCarrier


class UpdatePortin(ActionRequest):
    """Corrected old-account data for a port the carrier marked RESOLUTION_REQUIRED; any subset."""

    enroll_id: Alnum
    port_account_number: AccountNumber | None = None
    port_account_password: AccountPin | None = None
    port_first_name: PersonName | None = None
    port_last_name: LastName | None = None
    port_address_one: AddressLine | None = None
    port_city: City | None = None
    port_state: State | None = None
    port_zip_code: Zip5 | None = None

    @model_validator(mode="after")
    def _at_least_one_correction(self) -> UpdatePortin:
        if all(getattr(self, name) is None for name in CORRECTIONS):
            raise PydanticCustomError("rule", "Please provide at least one corrected port field")
        return self

    def corrections(self) -> dict[str, str]:
        """The corrected values under the names the port's stored secrets use."""
        return {name.removeprefix("port_").replace("zip_code", "zip"): getattr(self, name)
                for name in CORRECTIONS if getattr(self, name) is not None}  # fmt: skip


class ValidatePortin(ActionRequest):
    """Whether a number can be ported in, and the carrier it is with now (the carrier answers)."""

    port_number: Mdn
    zip_code: Zip5 | None = None
