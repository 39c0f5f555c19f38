"""What every action request carries (section 2.1 and the envelope extensions). The action's own rules
(sources, role, whether an agent must be named) are its declaration's (dispatch.actions)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from models.requests.optional import BlankIsAbsent
from models.types import NumOrStr, Raw128, Text32, Text64, TransactionId


class ActionRequest(BlankIsAbsent):
    """Unknown fields are ignored, as the original does; `action` itself was resolved before the model is."""

    model_config = ConfigDict(extra="ignore")

    source: Text32 | None = Field(default=None, examples=["API"])
    agent_id: NumOrStr | None = Field(default=None, examples=["demo.agent"])
    agent_password: Raw128 | None = None
    external_transaction_id: TransactionId | None = None  # echoed back; the request's idempotency key
    request_name: Text64 | None = None
    sub_source: Text64 | None = None
