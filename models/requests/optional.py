"""Channels send "" (and sometimes null) for optional fields they do not use: such a field is absent, under
every name it is accepted by (Lineup's and the original service's aliases alike, decisions.md "Blank values")."""

from __future__ import annotations

from functools import cache

from pydantic import AliasChoices, AliasPath, BaseModel, model_validator
from pydantic.fields import FieldInfo

from models.requests.wellformed import WellFormedText


def accepted_names(name: str, field: FieldInfo) -> set[str]:
    """The field's own name and every top-level alias it is validated from."""
    names = {name}
    alias = field.validation_alias
    choices = alias.choices if isinstance(alias, AliasChoices) else [alias] if alias is not None else []
    for choice in choices:
        if isinstance(choice, str):
            names.add(choice)
        elif isinstance(choice, AliasPath) and len(choice.path) == 1 and isinstance(choice.path[0], str):
            names.add(choice.path[0])
    if field.alias:
        names.add(field.alias)
    return names


@cache
def optional_names(model: type[BaseModel]) -> frozenset[str]:
    """Every name an optional field of `model` is accepted by (computed once per model)."""
    return frozenset(
        accepted
        for name, field in model.model_fields.items()
        if not field.is_required()
        for accepted in accepted_names(name, field)
    )


class BlankIsAbsent(WellFormedText):
    @model_validator(mode="before")
    @classmethod
    def _drop_blank_optionals(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        optional = optional_names(cls)
        return {
            key: value
            for key, value in data.items()
            if not (key in optional and isinstance(value, str) and not value.strip())
        }
