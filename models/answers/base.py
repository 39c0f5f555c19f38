"""The `data` of each action's successful answer, as a schema channels can generate clients from. The
operations build plain dicts; these models document them, and the tests validate every answer they see
against them (tests/support/app.py), so the document cannot drift from what the API sends."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Shape(BaseModel):
    """An answer's shape: exactly these members (an undocumented one fails the tests' check)."""

    model_config = ConfigDict(extra="forbid")


class Answer(BaseModel):
    """The envelope of a successful answer; an action whose answer has `data` adds it with its shape."""

    model_config = ConfigDict(extra="forbid")

    msg_code: str
    msg: str
    token: str | None = None
    external_transaction_id: str | None = None
