"""What every action request carries, and the per-action rules the dispatcher enforces."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field

from models.requests.optional import BlankIsAbsent
from models.types import NumOrStr, rule

CORE_SOURCES = frozenset({"API", "TABLET", "WEBSITE"})
WEB_SOURCES = frozenset({"API", "WEBSITE"})
VOICE_SOURCES = CORE_SOURCES | {"IVR"}
ALL_SOURCES = VOICE_SOURCES | {"CSR"}

TransactionId = rule(r"[A-Za-z0-9]{1,64}", "must be letters and digits only, at most 64", example="ORD20261121A1")


class ActionRequest(BlankIsAbsent):
    """Fields of section 2.1 plus the envelope extensions; unknown fields are ignored, as the original does."""

    model_config = ConfigDict(extra="ignore")

    SOURCES: ClassVar[frozenset[str]] = CORE_SOURCES
    SOURCE_REQUIRED: ClassVar[bool] = True
    AGENT_REQUIRED: ClassVar[bool] = True
    ROLE: ClassVar[str | None] = None

    source: str | None = Field(default=None, examples=["API"])
    agent_id: NumOrStr | None = Field(default=None, examples=["demo.agent"])
    agent_password: str | None = None
    external_transaction_id: TransactionId | None = None  # echoed back; the request's idempotency key
    request_name: str | None = None
    sub_source: str | None = None
