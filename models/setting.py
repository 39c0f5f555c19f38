"""One setting's declaration: its default, its `LINEUP_*` variable and what it is for, in one place, so the
settings table of the docs is generated from the code (models.settings_table)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")


@dataclass(frozen=True)
class Declared:
    """A setting as the docs show it."""

    alias_name: str  # the variable's name without LINEUP_, lower case
    default: object
    description: str


def setting(
    default: T,
    variable: str,
    description: str,
    *,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
) -> T:
    """A field read from `LINEUP_<variable>`; typed as its default so the group's annotation stays its own."""
    found: T = Field(default, validation_alias=variable.lower(), description=description, gt=gt, ge=ge, le=le)
    return found


class Group(BaseModel):
    """A frozen group of settings; it takes its fields by their variable names or their own."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid")

    @classmethod
    def declared(cls) -> dict[str, Declared]:
        """Field name → its variable, default and description."""
        found = {}
        for name, info in cls.model_fields.items():
            alias = info.validation_alias
            assert isinstance(alias, str) and info.description, f"{cls.__name__}.{name} needs setting(...)"
            found[name] = Declared(alias, info.default, info.description)
        return found
