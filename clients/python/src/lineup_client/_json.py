"""A JSON value, as the answers' `data` carry them."""

from __future__ import annotations

from typing import TypeAlias

Json: TypeAlias = "dict[str, Json] | list[Json] | str | int | float | bool | None"
