"""The one response shape: {msg_code, msg, errors?, token?, data?}."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel


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


class Envelope(BaseModel):
    msg_code: MsgCode
    msg: str
    errors: list[str] | None = None
    token: str | None = None
    data: Any = None
    external_transaction_id: str | None = None

    def body(self) -> dict[str, Any]:
        """The JSON object sent on the wire: absent members are left out, not sent as null."""
        out: dict[str, Any] = {"msg_code": self.msg_code.value, "msg": self.msg}
        for key in ("errors", "token", "external_transaction_id"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if "data" in self.model_fields_set:
            out["data"] = self.data
        return out
