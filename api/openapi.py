"""The OpenAPI document as channels see it: every answer is the envelope, so FastAPI's 422 shape goes."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")


def install(app: FastAPI) -> None:
    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
            for path in document["paths"].values():
                for operation in path.values():
                    operation.get("responses", {}).pop("422", None)
            for name in FASTAPI_VALIDATION_SCHEMAS:
                document.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]
