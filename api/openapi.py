"""The OpenAPI document as channels see it, so a channel team can generate a client: every answer is the
envelope (FastAPI's 422 shape goes), each action's successful answer has its `data` schema and an example,
the `token` header is required on operations, and /authenticate's four fields are required."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, create_model
from pydantic.json_schema import models_json_schema

from models.answers.base import Answer
from models.answers.registry import ANSWERS
from models.requests.catalog import ACTION_GROUP

FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")
REF = "#/components/schemas/{model}"
AUTHENTICATE_FIELDS = ["vendor_id", "username", "password", "pin"]


def install(app: FastAPI, *, base_path: str = "") -> None:
    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
            components = document.setdefault("components", {}).setdefault("schemas", {})
            for name in FASTAPI_VALIDATION_SCHEMAS:
                components.pop(name, None)
            answers = _answer_schemas()
            if clashes := set(answers) & set(components):  # one name, two schemas: a client would get one wrong
                raise RuntimeError(f"answer schemas named like request schemas: {sorted(clashes)}")
            components.update(answers)
            if "AuthenticateRequest" in components:
                # A missing one is answered like a wrong one at run time, but a client must send all four.
                components["AuthenticateRequest"]["required"] = AUTHENTICATE_FIELDS
            for path, item in document["paths"].items():
                group = path.removeprefix(base_path).strip("/")
                for operation in item.values():
                    _document(operation, group)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]


def _document(operation: dict[str, Any], group: str) -> None:
    operation.get("responses", {}).pop("422", None)
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "header" and parameter.get("name") == "token":
            # Checked first, and answered with the envelope when missing; a client must always send it.
            parameter["required"], parameter["schema"] = True, {"type": "string"}
    actions = [action for action, home in ACTION_GROUP.items() if home == group] or (
        [group] if group in ANSWERS else []
    )
    if not actions:
        return
    content = operation.setdefault("responses", {}).setdefault("200", {}).setdefault("content", {})
    content["application/json"] = {
        "schema": {"oneOf": [{"$ref": REF.format(model=_answer_model(action).__name__)} for action in actions]},
        "examples": {action: {"summary": action, "value": _example(action)} for action in actions},
    }


@cache
def _answer_model(action: str) -> type[BaseModel]:
    """The envelope of `action`'s successful answer, its `data` typed."""
    documented = ANSWERS[action]
    name = "".join(word.capitalize() for word in action.split("_")) + "Answer"
    if documented.shape is None:
        return create_model(name, __base__=Answer)
    return create_model(name, __base__=Answer, data=(documented.shape, ...))


def _answer_schemas() -> dict[str, Any]:
    models: list[tuple[type[BaseModel], Literal["validation"]]] = [(_answer_model(a), "validation") for a in ANSWERS]
    _, definitions = models_json_schema(models, ref_template=REF)
    found: dict[str, Any] = definitions.get("$defs", {})
    return found


def _example(action: str) -> dict[str, Any]:
    documented = ANSWERS[action]
    example: dict[str, Any] = {"msg_code": "RESTAPI000", "msg": documented.msg, "token": "…the next single-use token…"}
    if documented.shape is not None:
        example["data"] = documented.example
    return example
