"""Text that cannot be stored: JSON may carry lone surrogates (`"\\udc80"`) that no UTF-8 column, hash or log
can take. Every string field refuses them at the boundary, with a field error, before anything uses them."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ModelWrapValidatorHandler, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

NOT_TEXT = "must be valid text (it holds characters that are not Unicode)"


def malformed(value: object) -> bool:
    """True for a string (or a list of strings) that has no UTF-8 form."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    return isinstance(value, list) and any(isinstance(item, str) and malformed(item) for item in value)


class WellFormedText(BaseModel):
    @model_validator(mode="wrap")
    @classmethod
    def _encodable(cls, data: object, handler: ModelWrapValidatorHandler[Self]) -> Self:
        # Checked on what was sent, field by field, so each bad one is named (a nested model checks its own).
        if isinstance(data, dict):
            bad = [name for name in cls.model_fields if name in data and malformed(data[name])]
            if bad:
                problems: list[InitErrorDetails] = [
                    {"type": PydanticCustomError("rule", NOT_TEXT), "loc": (name,), "input": "…"} for name in bad
                ]
                raise ValidationError.from_exception_data(cls.__name__, problems)
        return handler(data)
