"""`/port`: query_portin, update_portin and submit_portin (corrections), validate_portin (also on `/inventory`),
get_list, and create_portin_v2… (a port added to a line created without one)."""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field, model_validator
from pydantic_core import PydanticCustomError

from models.requests.base import ActionRequest
from models.types import (
    AccountNumber,
    AccountPin,
    AddressLine,
    Alnum,
    City,
    Esn,
    Iccid,
    Imei,
    LastName,
    Mdn,
    PersonName,
    PortCarrier,
    PortSsn,
    State,
    Text32,
    YesNo,
    Zip5,
)


class PortAccountFields(BaseModel):
    """The old account's data a port-in carries, any subset of it: what update_portin and submit_portin correct,
    and what the support console's port fix corrects."""

    port_account_number: AccountNumber | None = None
    port_account_password: AccountPin | None = None
    port_first_name: PersonName | None = None
    port_last_name: LastName | None = None
    port_address_one: AddressLine | None = None
    port_city: City | None = None
    port_state: State | None = None
    port_zip_code: Zip5 | None = None

    def corrections(self) -> dict[str, str]:
        """The values given, under the names the port's sealed secrets use."""
        return {
            name.removeprefix("port_").replace("zip_code", "zip"): value
            for name in PortAccountFields.model_fields
            if (value := getattr(self, name)) is not None
        }


class QueryPortin(ActionRequest):
    """The status of a pending port-in order, named by its enrollment id, ESN/SIM and number together; without
    an ESN (mobile channels send `"esn": ""`, which is none) by its enrollment id and number alone."""

    enroll_id: Alnum
    esn: Esn | None = None
    mdn: Mdn
    carrier: PortCarrier


class PortCorrections(PortAccountFields, ActionRequest):
    """Corrected old-account data for a port the carrier marked RESOLUTION_REQUIRED; any subset."""

    @model_validator(mode="after")
    def _at_least_one_correction(self) -> PortCorrections:
        if not self.corrections():
            raise PydanticCustomError("rule", "Please provide at least one corrected port field")
        return self


class UpdatePortin(PortCorrections):
    """update_portin: corrections for the port of line `enroll_id`."""

    enroll_id: Alnum


class SubmitPortin(PortCorrections):
    """submit_portin (the mobile channels' name): corrections for the port `portin_enrollment_id` (a
    port_subscriber_id from get_list) of the account of `enrollment_id`; `password_pin` is the old PIN."""

    enrollment_id: Alnum
    portin_enrollment_id: Alnum
    port_account_password: AccountPin | None = Field(
        default=None, validation_alias=AliasChoices("port_account_password", "password_pin")
    )


class ValidatePortin(ActionRequest):
    """Whether a number can be ported in, and the carrier it is with now (the carrier answers); the mobile
    channels send it as `mdn` on `/inventory`."""

    port_number: Mdn = Field(validation_alias=AliasChoices("port_number", "mdn"))
    zip_code: Zip5 | None = None


class GetPortList(ActionRequest):
    """The port orders of a line, or with get_child_list Y of its whole account."""

    enroll_id: Alnum
    get_child_list: YesNo | None = None


def _either(ours: str, theirs: str) -> AliasChoices:
    """A field under Lineup's name or the original's (decisions.md: both forms are accepted)."""
    return AliasChoices(ours, theirs)


class CreatePortin(ActionRequest):
    """create_portin_v2_when_create_customer_was_called_without_portin_tag: a port for a line created without
    PORTIN. The line is named by `enrollment_id`, or by its `sim` alone. The old account's data comes under
    Lineup's `port_*` names or the original's documented ones (`first_name`, `account_number`, `password_pin`,
    `zip_code`, …), both onto one port order; no SSN is needed here (the carrier's port request carries none),
    and without a current carrier the carrier is asked for it."""

    enrollment_id: Alnum | None = None
    sim: Iccid | None = None
    imei: Imei | None = None  # the device the number moves to: checked, not part of the port order
    port_number: Mdn
    port_current_carrier: Text32 | None = Field(
        default=None, validation_alias=_either("port_current_carrier", "current_carrier")
    )
    port_first_name: PersonName = Field(validation_alias=_either("port_first_name", "first_name"))
    port_last_name: LastName = Field(validation_alias=_either("port_last_name", "last_name"))
    port_address_one: AddressLine = Field(validation_alias=_either("port_address_one", "address_one"))
    port_address_two: AddressLine | None = Field(
        default=None, validation_alias=_either("port_address_two", "address_two")
    )
    port_city: City = Field(validation_alias=_either("port_city", "city"))
    port_state: State = Field(validation_alias=_either("port_state", "state"))
    port_zip_code: Zip5 = Field(validation_alias=_either("port_zip_code", "zip_code"))
    port_account_number: AccountNumber = Field(validation_alias=_either("port_account_number", "account_number"))
    port_account_password: AccountPin = Field(validation_alias=_either("port_account_password", "password_pin"))
    port_ssn: PortSsn | None = None

    @model_validator(mode="after")
    def _names_a_line(self) -> CreatePortin:
        if self.enrollment_id is None and self.sim is None:
            raise PydanticCustomError("rule", "Please enter Enrollment Id (or the line's Sim)")
        return self

    def __repr__(self) -> str:  # the old account's data: never in a log line
        return f"CreatePortin(enrollment_id={self.enrollment_id!r})"
