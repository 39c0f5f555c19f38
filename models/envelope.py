"""The one response shape, {msg_code, msg, errors?, token?, external_transaction_id?, data?}, and what every room
says through it: LineupError (a refusal with its RESTAPI code), the refusal messages more than one operation
gives, the type names of Temporal's ApplicationErrors, the base of every answer's `data`, and the budget every
lookup a channel waits on carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue

T = TypeVar("T")


class MsgCode(StrEnum):
    SUCCESS = "RESTAPI000"
    TOKEN = "RESTAPI001"  # token errors, credentials and "Invalid Access!!"
    MODULE_REQUIRED = "RESTAPI101"
    ACTION_REQUIRED = "RESTAPI102"
    SOURCE = "RESTAPI103"
    AGENT = "RESTAPI104"
    MODULE_UNKNOWN = "RESTAPI105"
    ACTION_UNKNOWN = "RESTAPI106"
    COMPANY = "RESTAPI107"
    WRONG_GROUP = "RESTAPI108"
    UNAUTHORIZED = "RESTAPI109"
    MULTIPLE = "RESTAPI010"
    ERROR = "RESTAPI110"


class Omitted(Enum):
    """The answer carries no `data` member at all (None would be sent as null)."""

    DATA = "no data"


@dataclass(frozen=True)
class Envelope:
    msg_code: MsgCode
    msg: str
    errors: list[str] | None = None
    token: str | None = None
    external_transaction_id: str | None = None
    data: JsonValue | Omitted = Omitted.DATA

    def body(self) -> dict[str, JsonValue]:
        """The JSON object sent on the wire: absent members are left out, not sent as null."""
        out: dict[str, JsonValue] = {"msg_code": self.msg_code.value, "msg": self.msg}
        if self.errors is not None:
            out["errors"] = list(self.errors)
        if self.token is not None:
            out["token"] = self.token
        if self.external_transaction_id is not None:
            out["external_transaction_id"] = self.external_transaction_id
        if not isinstance(self.data, Omitted):
            out["data"] = self.data
        return out


class LineupError(Exception):
    """A refusal with its RESTAPI code; `rest_status` overrides the code's status in `rest` mode."""

    def __init__(
        self,
        code: MsgCode,
        msg: str,
        errors: list[str] | None = None,
        *,
        rest_status: int | None = None,
        data: object = None,
    ) -> None:
        super().__init__(msg)
        # Token errors carry no `errors` (interface 7.2); every other refusal repeats its message there.
        if errors is None and code is not MsgCode.TOKEN:
            errors = [msg]
        self.code, self.msg, self.errors, self.rest_status = code, msg, errors, rest_status
        self.data = data  # what the refusal shows beside it (a blacklisted device's data), rarely anything


class TokenRefused(LineupError):
    """A refusal at the token check; `reason` (missing, unknown, used, expired) is for metrics, never the
    answer, which stays the one message decisions.md gives."""

    def __init__(self, reason: str, msg: str) -> None:
        super().__init__(MsgCode.TOKEN, msg)
        self.reason = reason


def refuse(*errors: str, rest_status: int | None = None, data: object = None) -> LineupError:
    """A business or validation refusal: one message is RESTAPI110, several RESTAPI010."""
    code, msg = (MsgCode.ERROR, "Error occurred") if len(errors) == 1 else (MsgCode.MULTIPLE, "Multiple errors")
    return LineupError(code, msg, list(errors), rest_status=rest_status, data=data)


def upstream_down(system: str, *, timed_out: bool = False) -> LineupError:
    """An outside system (or Temporal) that stays down after its retries (decisions.md: upstream failure)."""
    return refuse(f"{system} is unavailable, please try again later", rest_status=504 if timed_out else 502)


CARRIER_REJECTED = "CarrierRejected"  # a business "no" from the carrier: final, never retried
NOT_FOUND = "NotFound"  # a row a workflow works from is missing: retrying cannot make it appear
MAIL_REJECTED = "MailRejected"  # the relay refused this message for good (5xx)
UNAVAILABLE = "Unavailable"  # an outside system did not answer usefully: retried
INVALID_TRANSITION = "InvalidTransition"  # a state change the workflow refuses (e.g. temporary after final)
ENDPOINT_DISABLED = "EndpointDisabled"  # a webhook endpoint switched off: its deliveries end
PORT_UNCHANGED = "PortUnchanged"  # a poll found the port as it was: the activity is retried at the poll interval
# Lineup's own database did not answer: the workflow waits for it; it never counts as the carrier's failure.
DATABASE_UNAVAILABLE = "DatabaseUnavailable"

NO_RECORD = "No Record Found"
PLANS_NOT_FOUND = "Plans not found"
NO_PORT_ORDER = "No port-in order found for this enrollment id"
PORT_IN_PROGRESS = "Number already has a port in progress"
# Another vendor's port of the number holds it (in progress, or waiting for corrections within LINEUP_PORT_HOLD_HOURS),
# or the number's port-outs are locked after too many wrong account/PIN checks: words that tell neither.
PORT_NOT_NOW = "The number cannot be ported now"


def invalid_enrollment_id(enrollment_id: str | None) -> str:
    return f"Invalid enrollment id {enrollment_id}. Please provide a valid enrollment ID."


def not_waiting_for_activation(status: str) -> str:
    return f"Line is not waiting for activation ({status})"


def active_on_another_sim(own_sim: str | None) -> str:
    """Names the line's SIM by its last 4 digits only: enough for the agent holding it, not a SIM to reuse."""
    return f"Line is already active on another SIM (ending {own_sim[-4:]})" if own_sim else "Line is already active"


def already_porting(status: str | None = None) -> str:
    return f"Line is already porting a number ({status})" if status else "Line is already porting a number"


class Shape(BaseModel):
    """An answer's shape: exactly these members (an undocumented one fails the tests' check)."""

    model_config = ConfigDict(extra="forbid")


def omitted_when_none(default: T | None = None) -> T | None:
    """A member the answer leaves out, rather than sending as null, when it has no value."""
    found: T | None = Field(default=default, exclude_if=lambda value: value is None)
    return found


@dataclass(frozen=True)
class Budget:
    # Keyword-only: it goes after each lookup's own fields, and histories recorded without it decode.
    budget_seconds: float = field(default=10.0, kw_only=True)
