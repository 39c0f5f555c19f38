"""What every action request carries, and the per-action rules the dispatcher enforces."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict, Field

from models.requests.optional import BlankIsAbsent
from models.types import NumOrStr, Raw128, Text32, Text64, TransactionId

CORE_SOURCES = frozenset({"API", "TABLET", "WEBSITE"})
WEB_SOURCES = frozenset({"API", "WEBSITE"})
VOICE_SOURCES = CORE_SOURCES | {"IVR"}
ALL_SOURCES = VOICE_SOURCES | {"CSR"}
PORTAL_SOURCE = "ENROLLMENT_PORTAL"  # Lineup's own portal, accepted on every operation


def _document_sources(schema: dict[str, Any], model: type[Any]) -> None:
    """The schema names the action's sources, so generated clients (and fuzzers) send one that passes.
    Checked case-insensitively, and LINEUP_EXTRA_SOURCES adds more at run time."""
    sources: frozenset[str] = getattr(model, "SOURCES", frozenset())
    if "source" in schema.get("properties", {}) and sources:
        enum = sorted(sources | {PORTAL_SOURCE})
        schema["properties"]["source"] = {"type": "string", "enum": enum, "title": "Source"}
        if getattr(model, "SOURCE_REQUIRED", False):
            schema["required"] = sorted({*schema.get("required", []), "source"})


class ActionRequest(BlankIsAbsent):
    """Fields of section 2.1 plus the envelope extensions; unknown fields are ignored, as the original does."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_document_sources)

    SOURCES: ClassVar[frozenset[str]] = CORE_SOURCES
    SOURCE_REQUIRED: ClassVar[bool] = True
    AGENT_REQUIRED: ClassVar[bool] = True
    ROLE: ClassVar[str | None] = None

    source: Text32 | None = Field(default=None, examples=["API"])
    agent_id: NumOrStr | None = Field(default=None, examples=["demo.agent"])
    agent_password: Raw128 | None = None
    external_transaction_id: TransactionId | None = None  # echoed back; the request's idempotency key
    request_name: Text64 | None = None
    sub_source: Text64 | None = None
