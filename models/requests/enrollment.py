"""Requests of the enrollment domain: customer creation (and its aliases), later activation, line inquiry,
customer information, and the supporting operations that issue enrollment ids and list plans and carriers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from models.geography import outside_state
from models.requests.base import ActionRequest
from models.requests.conditional import ConditionalFields, sent
from models.requests.optional import BlankIsAbsent
from models.types import (
    AccountNumber,
    AccountPin,
    AddressLine,
    Alnum,
    CarrierCode,
    City,
    CustomerPin,
    Email,
    Esn,
    Iccid,
    LastName,
    Mdn,
    MiddleInitial,
    Numeric,
    NumText32,
    PersonName,
    Phone10,
    PortSsn,
    Raw64,
    State,
    Text32,
    Text64,
    YesNo,
    Zip5,
)


class CheckServiceAvailability(ActionRequest):
    """Issues a new, unused enrollment id for a ZIP the service covers."""

    zip_code: Zip5
    enrollment_type: Literal["NON_LIFELINE"] = "NON_LIFELINE"
    is_enrollment: Literal["Y"] | None = None


class PlanList(ActionRequest):
    """The plans a channel can sell, optionally one plan or the plans sold in a ZIP's state."""

    zip_code: Zip5 | None = None
    plan_id: Numeric | None = None


class CompanyCarrierList(ActionRequest):
    """The carriers the company sells on, with the carrier's numeric ids (query_portin takes either)."""


MOST_LINES = 100
PORT_FIELDS = (
    "port_current_carrier", "port_first_name", "port_last_name", "port_address_one", "port_city", "port_state",
    "port_zip_code", "port_account_number", "port_account_password", "port_ssn", "port_number",
)  # fmt: skip


class LineRequest(BlankIsAbsent, ConditionalFields):
    """One line (section 2.3). Conditional rules: PORTIN needs the port fields; HANDOVER needs
    handover_type `cbe`, esn and carrier; phone_type 4G needs uiccid."""

    enrollment_id: Alnum
    password: Raw64 | None = Field(default=None, min_length=6)
    model_id: Text64 | None = None
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
    part_number: Text64 | None = None
    equipment_id: Text64 | None = None
    equipment_child_id: Text64 | None = None
    device_id: Text64 | None = None
    uiccid: Iccid | None = None
    brand_code: Literal["ASW", "BST", "SPP", "VMU", "SPR", "PLD"] | None = None
    sku_type: Literal["INTL", "BYO", "NEW"] | None = None
    esn: Esn | None = None
    carrier: CarrierCode | None = None
    activation_type: Literal["NEWACTIVATION", "PORTIN"]
    enrollment_type: Literal["SHIPMENT", "HANDOVER"]
    handover_type: Literal["cbe"] | None = None
    port_current_carrier: Text32 | None = None
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
    coupon_code: Text64 | None = None
    coupon_transaction_id: Text32 | None = None
    activation_later: YesNo | None = None
    is_esim: YesNo | None = None  # Y: no physical SIM; the carrier assigns an eSIM profile
    pin: CustomerPin | None = None  # the customer's account PIN; generated when not given
    # The original service's per-line forms (create_prepaid_postpaid_customer_v2): see CreateMultiline.
    is_portin: YesNo | None = None
    parent_enrollment_id: Alnum | None = None
    order_id: NumText32 | None = None  # make_payment's order_id; the payment is found by enrollment id anyway
    action: object = None  # the sample sends it per line, as null

    @classmethod
    def required_when(cls, data: Mapping[str, object]) -> dict[str, list[str]]:
        """PORTIN needs the port fields; HANDOVER needs handover_type, carrier and (unless eSIM) esn; phone
        type 4G needs uiccid unless the carrier assigns an eSIM."""
        esim = data.get("is_esim") == "Y"
        rules: dict[str, list[str]] = {}
        if data.get("activation_type") == "PORTIN":
            rules["a PORTIN activation"] = [f for f in PORT_FIELDS if not sent(data, f)]
        if data.get("enrollment_type") == "HANDOVER":
            needed = ("handover_type", "carrier") if esim else ("handover_type", "esn", "carrier")
            rules["a HANDOVER enrollment"] = [f for f in needed if not sent(data, f)]
        if data.get("phone_type") == "4G" and not esim:
            rules["phone type 4G"] = [] if sent(data, "uiccid") else ["uiccid"]
        return rules

    @field_validator("service_zip")
    @classmethod
    def _zip_in_state(cls, service_zip: str, info: ValidationInfo[object]) -> str:
        """The service ZIP is one of the service state's, by USPS's ZIP data (service_state is validated first,
        declared before it; a bad state is its own error)."""
        state = info.data.get("service_state")
        if isinstance(state, str) and (problem := outside_state(service_zip, state)):
            raise PydanticCustomError("rule", problem)
        return service_zip

    @property
    def later(self) -> bool:
        return self.activation_later == "Y"

    @property
    def esim(self) -> bool:
        return self.is_esim == "Y"


class CreateMultiline(ActionRequest):
    """Creates prepaid customers, one per line, under a parent account (1 to LINEUP_MAX_LINES lines)."""

    # Bounded before a single line is validated (a 100,000-line body is one cheap refusal); the deployment's
    # own LINEUP_MAX_LINES, at most this, is checked by the operation.
    lines: list[LineRequest] = Field(min_length=1, max_length=MOST_LINES)
    parent_enrollment_id: Alnum
    invoice_number: str | None = Field(default=None, max_length=32)

    @model_validator(mode="before")
    @classmethod
    def _original_forms(cls, data: object) -> object:
        """The aliases take the original's forms too (decisions.md): the parent named inside the lines, and
        activation_type from is_portin. create_customer_prepaid_multiline keeps the interface's rules."""
        if not isinstance(data, dict) or data.get("action") not in ALIASES or not isinstance(data.get("lines"), list):
            return data
        lines = [_with_activation_type(line) for line in data["lines"]]
        form = {**data, "lines": lines}
        if not sent(data, "parent_enrollment_id") and (holder := _holder(lines)) is not None:
            form["parent_enrollment_id"] = holder
        return form


ALIASES = ("add_line_nonlifeline_customer", "create_prepaid_postpaid_customer_v2")


def _with_activation_type(line: object) -> object:
    if not isinstance(line, dict) or sent(line, "activation_type"):
        return line
    return {**line, "activation_type": "PORTIN" if line.get("is_portin") == "Y" else "NEWACTIVATION"}


def _holder(lines: list[object]) -> str | None:
    """The account holder the lines name: each line's parent_enrollment_id, or the line itself when that is
    empty or its own id. Lines naming different holders name none (parent_enrollment_id stays missing).

    A line without its own id and without a parent names nobody: it is refused for its missing id whatever
    the parent, so reporting the parent missing as well would name an error the channel did not make
    (decisions.md, "v2 lines without their own id"). When no line names anyone, the holder is such a line,
    and the request cannot validate: the placeholder only keeps the parent from being reported."""
    named = set()
    for line in lines:
        if not isinstance(line, dict):
            return None
        if (parent := _text(line.get("parent_enrollment_id"))) is not None:
            named.add(parent)
        elif (own := _text(line.get("enrollment_id"))) is not None:
            named.add(own)
    if not named:
        return UNNAMED_HOLDER if lines else None
    return named.pop() if len(named) == 1 else None


# Stands for an account holder whose own enrollment id is missing; such a request never validates.
UNNAMED_HOLDER = "UNNAMED"


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


class LineInquiry(ActionRequest):
    """Asks the carrier about a line; each flag selects part of the answer."""

    enrollment_id: Alnum
    line_inquiry: YesNo | None = None
    balance_inquiry: YesNo | None = None
    zoom_balance: YesNo | None = None
    peer_balance: YesNo | None = None
    telna_balance: YesNo | None = None
    query_sim_info: YesNo | None = None
    data_saver_info: YesNo | None = None
    subscriber_status: YesNo | None = None


class ActivateLine(ActionRequest):
    """Activates a line created with activation_later=Y; a new SIM (esn or uiccid) may replace the attached one."""

    enrollment_id: Alnum
    esn: Esn | None = None
    uiccid: Iccid | None = None

    @model_validator(mode="after")
    def _one_sim(self) -> ActivateLine:
        if self.esn is not None and self.uiccid is not None:
            raise PydanticCustomError("rule", "Send either Esn or Uiccid, not both")
        return self


class AssignEsim(ActionRequest):
    """The line's eSIM profile: the one it has, or one the carrier assigns now to a line that has no SIM yet."""

    enrollment_id: Alnum


class NewNumberActivation(ActionRequest):
    """new_number_activation_with_zip_code: activates a line waiting for activation with a new number in the
    ZIP's area; a SIM (esn, or sim / iccid) may replace the attached one."""

    enrollment_id: Alnum
    zip_code: Zip5
    esn: Esn | None = None
    sim: Iccid | None = None
    iccid: Iccid | None = None

    @model_validator(mode="after")
    def _one_sim(self) -> NewNumberActivation:
        if sum(value is not None for value in (self.esn, self.sim, self.iccid)) > 1:
            raise PydanticCustomError("rule", "Send one of Esn, Sim or Iccid, not several")
        return self

    @property
    def sim_number(self) -> str | None:
        return self.sim or self.iccid


class CustomerInfo(ActionRequest):
    """The customers of the calling vendor that match one key (an e-mail may match several), line by line."""

    enrollment_id: Alnum | None = None
    customer_id: Numeric | None = None
    email: Email | None = None

    @model_validator(mode="after")
    def _one_key(self) -> CustomerInfo:
        if self.enrollment_id is None and self.customer_id is None and self.email is None:
            raise PydanticCustomError("rule", "Please enter either Customer ID, Enrollment ID or Email")
        return self
