"""Requests of the support domain: `/ops` (the lines waiting for support and the retry that resumes one or
many) and the support console's forms (api/console), validated as declared here; the CSRF field is checked
before them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

from models.requests.base import ActionRequest
from models.requests.conditional import ConditionalFields, sent
from models.requests.optional import BlankIsAbsent
from models.requests.porting import PortAccountFields
from models.types import (
    Alnum,
    Esn,
    Iccid,
    Text32,
    Text100,
    YesNo,
)

A_YEAR_OF_MINUTES = 525_600


class ListStuckEnrollments(ActionRequest):
    """Lines waiting for support (STUCK, or RECEIVED and never started), longest waiting first."""

    limit: int = Field(default=100, ge=1, le=500)


class RetryEnrollment(ActionRequest, ConditionalFields):
    """Resumes one waiting line (`enrollment_id`), or with `all_stuck` Y every waiting line of the vendor,
    narrowed by `error_contains` and `stuck_minutes`: a stuck line's workflow tries its failed step again, a
    line that never started has its order's workflow started."""

    enrollment_id: Alnum | None = None
    all_stuck: YesNo | None = None
    error_contains: Text100 | None = Field(default=None, description="Part of the last error (any case); all_stuck Y")
    stuck_minutes: int | None = Field(
        default=None, ge=1, le=A_YEAR_OF_MINUTES, description="Waiting at least this many minutes; all_stuck Y"
    )

    @classmethod
    def required_when(cls, data: Mapping[str, object]) -> dict[str, list[str]]:
        """One line needs its enrollment id; a bulk retry (`all_stuck` Y) names none."""
        if data.get("all_stuck") == "Y":
            return {}
        return {"": [] if sent(data, "enrollment_id") else ["enrollment_id"]}

    @model_validator(mode="after")
    def _one_or_all(self) -> RetryEnrollment:
        if self.bulk and self.enrollment_id is not None:
            raise PydanticCustomError("rule", "Send either enrollment_id or all_stuck Y, not both")
        if not self.bulk and (self.error_contains is not None or self.stuck_minutes is not None):
            raise PydanticCustomError("rule", "error_contains and stuck_minutes narrow a retry with all_stuck Y")
        return self

    @property
    def bulk(self) -> bool:
        return self.all_stuck == "Y"


# What a login form may carry: a longer name names no agent, and argon2 has nothing to gain from a longer secret.
Username = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Password = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class ConsoleForm(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SignIn(ConsoleForm, BlankIsAbsent):
    """An agent's username is its vendor's own: the vendor id picks the agent when several vendors have one of
    that name (decisions.md, "Agents per vendor"); blank otherwise."""

    username: Username = Field(title="Username")
    password: Password = Field(title="Password")
    vendor_id: Text32 | None = Field(default=None, title="Vendor id")


class Search(ConsoleForm):
    """An enrollment id (or parent enrollment id), an MDN or a customer id: all letters and digits."""

    q: Alnum = Field(title="Enrollment id, MDN or customer id")


class LineAction(ConsoleForm):
    """Retry or Activate, posted from a row: the line's enrollment id comes in the path."""

    enrollment_id: Alnum


class FixForm(ConsoleForm, BlankIsAbsent):
    """A correction form: a field left blank is not corrected; at least one must be given."""

    def given(self) -> dict[str, str]:
        return {name: value for name, value in self.model_dump().items() if isinstance(value, str)}

    @model_validator(mode="after")
    def _something(self) -> FixForm:
        if not self.given():
            raise PydanticCustomError("rule", "Please enter at least one corrected field")
        return self


class SimReplacement(FixForm):
    """A new SIM for a stuck line, checked as at creation (esn, or uiccid with its check digit)."""

    esn: Esn | None = Field(default=None, title="ESN")
    uiccid: Iccid | None = Field(default=None, title="SIM (ICCID)")


class PortFix(PortAccountFields, FixForm):
    """Corrected old-account data of a line's port-in (the same fields and rules as update_portin)."""


class RetryMany(ConsoleForm, BlankIsAbsent):
    """The console's bulk retry: every stuck line whose last error contains the text and that waited long enough."""

    error_contains: Text100 | None = None
    stuck_minutes: int | None = Field(default=None, ge=1, le=A_YEAR_OF_MINUTES)


class WebhookForm(ConsoleForm):
    url: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)] = Field(title="URL")
    events: Annotated[str, StringConstraints(strip_whitespace=True, max_length=1000)] = ""
