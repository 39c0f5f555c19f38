"""The `data` of each action's successful answer, as typed models: handlers return them, the dispatcher
serializes them, the OpenAPI document shows their schemas, and the tests validate every answer they see
against the action's declared model, so the document cannot drift from what the API sends."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")


class Shape(BaseModel):
    """An answer's shape: exactly these members (an undocumented one fails the tests' check)."""

    model_config = ConfigDict(extra="forbid")


def omitted_when_none(default: T | None = None) -> T | None:
    """A member the answer leaves out, rather than sending as null, when it has no value."""
    found: T | None = Field(default=default, exclude_if=lambda value: value is None)
    return found
