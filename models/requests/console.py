"""The support console's forms (api/console), validated as declared here; the CSRF field is checked before them."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from models.types import Alnum

# What a login form may carry: a longer name names no agent, and argon2 has nothing to gain from a longer secret.
Username = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Password = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class ConsoleForm(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SignIn(ConsoleForm):
    username: Username = Field(title="Username")
    password: Password = Field(title="Password")


class Search(ConsoleForm):
    """An enrollment id (or parent enrollment id), an MDN or a customer id: all letters and digits."""

    q: Alnum = Field(title="Enrollment id, MDN or customer id")


class LineAction(ConsoleForm):
    """Retry or Activate, posted from a row: the line's enrollment id comes in the path."""

    enrollment_id: Alnum
