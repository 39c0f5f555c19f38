"""Fields required only when other fields say so (a PORTIN line needs the port fields, a card payment the
card). The rules look at what was sent, so their messages come beside the fields' own errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Self

from pydantic import BaseModel, ModelWrapValidatorHandler, ValidationError, model_validator
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError


def sent(data: Mapping[str, object], *names: str) -> bool:
    """True when any of `names` (a field and its aliases) carries a value; blank text is not a value."""
    return any(_valued(data.get(name)) for name in names)


def _valued(value: object) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


class ConditionalFields(BaseModel):
    """Subclasses say which fields each rule needs; a missing one is reported as `X is required for …`."""

    @classmethod
    def required_when(cls, data: Mapping[str, object]) -> dict[str, list[str]]:
        """{reason: the fields that reason needs and that were not sent}; the reason "" is the usual case,
        whose fields are reported as plainly missing."""
        return {}

    @model_validator(mode="wrap")
    @classmethod
    def _conditional_fields(cls, data: object, handler: ModelWrapValidatorHandler[Self]) -> Self:
        found = cls.required_when(data) if isinstance(data, dict) else {}
        missing = {reason: fields for reason, fields in found.items() if fields}
        required = PydanticCustomError("required_when", "{problems}", {"problems": missing})
        try:
            model = handler(data)
        except ValidationError as error:
            if not missing:
                raise
            again: list[InitErrorDetails] = [_reraised(problem) for problem in error.errors()]
            again.append({"type": required, "input": data})
            raise ValidationError.from_exception_data(error.title, again) from None
        if missing:
            raise required
        return model


def _reraised(problem: ErrorDetails) -> InitErrorDetails:
    """A field's problem as it is raised again beside the conditional rules, with its type, place and context."""
    kind = PydanticCustomError(problem["type"], problem["msg"], problem.get("ctx"))
    return {"type": kind, "loc": problem["loc"], "input": problem["input"]}
