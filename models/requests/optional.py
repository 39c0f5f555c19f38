"""Channels send "" (and sometimes null) for optional fields they do not use: such a field is absent."""

from __future__ import annotations

from typing import Any

from pydantic import model_validator

from models.requests.wellformed import WellFormedText


class BlankIsAbsent(WellFormedText):
    @model_validator(mode="before")
    @classmethod
    def _drop_blank_optionals(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        optional = {name for name, field in cls.model_fields.items() if not field.is_required()}
        return {
            key: value
            for key, value in data.items()
            if not (key in optional and isinstance(value, str) and not value.strip())
        }
