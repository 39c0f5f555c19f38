"""The one response shape: {msg_code, msg, errors?, token?, external_transaction_id?, data?}."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum

from pydantic import JsonValue


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


NO_DATA = Omitted.DATA


@dataclass(frozen=True)
class Envelope:
    msg_code: MsgCode
    msg: str
    errors: list[str] | None = None
    token: str | None = None
    external_transaction_id: str | None = None
    data: JsonValue | Omitted = NO_DATA

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
