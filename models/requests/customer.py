"""`/customer`: create_customer_prepaid_multiline (and its aliases) and line_inquiry."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ModelWrapValidatorHandler, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from models.requests.base import WEB_SOURCES, ActionRequest
from models.requests.optional import BlankIsAbsent
from models.types import (
    AccountNumber, AccountPin, AddressLine, Alnum, CarrierCode, City, Email, Esn, Iccid, LastName, Mdn,
    MiddleInitial, Numeric, PersonName, Phone10, PortSsn, State, Text, YesNo, Zip5,
)  # fmt: skip

PORT_FIELDS = (
    "port_current_carrier", "port_first_name", "port_last_name", "port_address_one", "port_city", "port_state",
    "port_zip_code", "port_account_number", "port_account_password", "port_ssn", "port_number",
)  # fmt: skip


class LineRequest(BlankIsAbsent):
    """One line (section 2.3). Conditional rules: PORTIN needs the port fields; HANDOVER needs
    handover_type `cbe`, esn and carrier; phone_type 4G needs uiccid."""

    enrollment_id: Alnum
    password: str | None = Field(default=None, min_length=6, max_length=64)
    model_id: str | None = None
    first_name: PersonName
    middle_initial: MiddleInitial | None = None
    last_name: LastName
    alternate_phone_number: Phone10 | None = None
    email: Email
    service_address_one: AddressLine
    service_address_two: AddressLine | None = None
    service_city: City
    service_state: State
    service_zip: Zip5
    plan_id: Numeric
    notify_bill_via_text: YesNo | None = None
    notify_bill_via_email: YesNo | None = None
    phone_type: Literal["4G", "3G", "4GLTE"] | None = None
    part_number: str | None = None
    equipment_id: str | None = None
    equipment_child_id: str | None = None
    device_id: str | None = None
    uiccid: Iccid | None = None
    brand_code: Literal["ASW", "BST", "SPP", "VMU", "SPR", "PLD"] | None = None
    sku_type: Literal["INTL", "BYO", "NEW"] | None = None
    esn: Esn | None = None
    carrier: CarrierCode | None = None
    activation_type: Literal["NEWACTIVATION", "PORTIN"]
    enrollment_type: Literal["SHIPMENT", "HANDOVER"]
    handover_type: Literal["cbe"] | None = None
    port_current_carrier: Text | None = None
    port_first_name: PersonName | None = None
    port_last_name: LastName | None = None
    port_address_one: AddressLine | None = None
    port_address_two: AddressLine | None = None
    port_city: City | None = None
    port_state: State | None = None
    port_zip_code: Zip5 | None = None
    port_account_number: AccountNumber | None = None
    port_account_password: AccountPin | None = None
    port_ssn: PortSsn | None = None
    port_number: Mdn | None = None
    billing_address_one: AddressLine | None = None
    billing_address_two: AddressLine | None = None
    billing_city: City | None = None
    billing_state: State | None = None
    billing_zip: Zip5 | None = None
    device_type: Literal["CDMA", "GSM"] | None = None
    coupon_code: str | None = None
    coupon_transaction_id: str | None = None
    activation_later: YesNo | None = None
    action: Any = None  # the sample sends it per line, as null

    @model_validator(mode="wrap")
    @classmethod
    def _conditional_fields(cls, data: Any, handler: ModelWrapValidatorHandler[LineRequest]) -> LineRequest:
        """The conditional rules look at what was sent, so they are reported beside the fields' own errors."""
        missing = _conditionally_missing(data) if isinstance(data, dict) else {}
        required = PydanticCustomError("required_when", "{problems}", {"problems": missing})
        try:
            line = handler(data)
        except ValidationError as error:
            if not missing:
                raise
            again: list[Any] = [_reraised(problem) for problem in error.errors()]
            again.append({"type": required, "input": data})
            raise ValidationError.from_exception_data(error.title, again) from None
        if missing:
            raise required
        return line

    @property
    def later(self) -> bool:
        return self.activation_later == "Y"


def _reraised(problem: Any) -> dict[str, Any]:
    """A field's problem as it is raised again beside the conditional rules, with its type, place and context."""
    kind = PydanticCustomError(problem["type"], problem["msg"], problem.get("ctx"))
    return {"type": kind, "loc": problem["loc"], "input": problem["input"]}


def _conditionally_missing(data: dict[str, Any]) -> dict[str, list[str]]:
    """{reason: fields it needs that were not sent}: PORTIN, HANDOVER and phone type 4G."""

    def absent(field: str) -> bool:
        value = data.get(field)
        return value is None or (isinstance(value, str) and not value.strip())

    missing: dict[str, list[str]] = {}
    if data.get("activation_type") == "PORTIN":
        missing["a PORTIN activation"] = [f for f in PORT_FIELDS if absent(f)]
    if data.get("enrollment_type") == "HANDOVER":
        missing["a HANDOVER enrollment"] = [f for f in ("handover_type", "esn", "carrier") if absent(f)]
    if data.get("phone_type") == "4G":
        missing["phone type 4G"] = ["uiccid"] if absent("uiccid") else []
    return {reason: fields for reason, fields in missing.items() if fields}


class CreateMultiline(ActionRequest):
    """Creates prepaid customers, one per line, under a parent account (1 to LINEUP_MAX_LINES lines)."""

    SOURCES = WEB_SOURCES

    action: Literal[
        "create_customer_prepaid_multiline", "add_line_nonlifeline_customer", "create_prepaid_postpaid_customer_v2"
    ]
    lines: list[LineRequest] = Field(min_length=1)
    parent_enrollment_id: Alnum
    invoice_number: str | None = Field(default=None, max_length=32)


class LineInquiry(ActionRequest):
    """Asks the carrier about a line; each flag selects part of the answer."""

    SOURCES = WEB_SOURCES

    action: Literal["line_inquiry"]
    enrollment_id: Alnum
    line_inquiry: YesNo | None = None
    balance_inquiry: YesNo | None = None
    zoom_balance: YesNo | None = None
    peer_balance: YesNo | None = None
    telna_balance: YesNo | None = None
    query_sim_info: YesNo | None = None
    data_saver_info: YesNo | None = None
    subscriber_status: YesNo | None = None


CustomerAction = CreateMultiline | LineInquiry
