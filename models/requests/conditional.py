"""Fields required only when other fields say so (a PORTIN line needs the port fields, a card payment the
card). The rules look at what was sent, so their messages come beside the fields' own errors."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ModelWrapValidatorHandler, ValidationError, model_validator
from pydantic_core import PydanticCustomError


def sent(data: dict[str, Any], *names: str) -> bool:
    """True when any of `names` (a field and its aliases) carries a value; blank text is not a value."""
    return any(
        not (data.get(name) is None or (isinstance(data.get(name), str) and not data[name].strip())) for name in names
    )


class ConditionalFields(BaseModel):
    """Subclasses say which fields each rule needs; a missing one is reported as `X is required for …`."""

    @classmethod
    def required_when(cls, data: dict[str, Any]) -> dict[str, list[str]]:
        """{reason: the fields that reason needs and that were not sent}; the reason "" is the usual case,
        whose fields are reported as plainly missing."""
        return {}

    @model_validator(mode="wrap")
    @classmethod
    def _conditional_fields(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        found = cls.required_when(data) if isinstance(data, dict) else {}
        missing = {reason: fields for reason, fields in found.items() if fields}
        required = PydanticCustomError("required_when", "{problems}", {"problems": missing})
        try:
            model = handler(data)
        except ValidationError as error:
            if not missing:
                raise
            again: list[Any] = [_reraised(problem) for problem in error.errors()]
            again.append({"type": required, "input": data})
            raise ValidationError.from_exception_data(error.title, again) from None
        if missing:
            raise required
        return model


def _reraised(problem: Any) -> dict[str, Any]:
    """A field's problem as it is raised again beside the conditional rules, with its type, place and context."""
    kind = PydanticCustomError(problem["type"], problem["msg"], problem.get("ctx"))
    return {"type": kind, "loc": problem["loc"], "input": problem["input"]}
