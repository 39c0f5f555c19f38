"""The OpenAPI document as channels see it, built from the action declarations (api.catalog), so a channel
team can generate a client: each group's path takes the request of any of its actions (told apart by
`action`), each answer is the envelope with its action's `data` schema and an example, the `token` header is
required on operations, and /authenticate's four fields are required."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal, cast

import fastapi_offline
import pydantic_core
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, JsonValue, create_model
from pydantic.json_schema import models_json_schema

from api.access import PORTAL_SOURCE
from api.catalog import CATALOG
from api.dispatch import Action
from models.auth import AuthenticateRequest
from models.types import ActionRequest

REF = "#/components/schemas/{model}"
JsonObject = dict[str, JsonValue]
Mode = Literal["validation", "serialization"]
AUTHENTICATE_FIELDS: list[JsonValue] = ["vendor_id", "username", "password", "pin"]
TOKEN_HEADER: JsonObject = {
    "name": "token",
    "in": "header",
    "required": True,
    "schema": {"type": "string"},
    "description": "The single-use token from /authenticate, or from the previous answer",
}


class Answered(BaseModel):
    """The envelope of a successful answer; an action whose answer has `data` adds it with its model."""

    msg_code: str
    msg: str
    token: str | None = None
    external_transaction_id: str | None = None


def answer_name(action: Action) -> str:
    return "".join(word.capitalize() for word in action.name.split("_")) + "Answer"


@cache
def answer_model(action: Action) -> type[BaseModel]:
    """The envelope of `action`'s successful answer, its `data` typed."""
    if action.answer is None:
        return create_model(answer_name(action), __base__=Answered)
    return create_model(answer_name(action), __base__=Answered, data=(cast(type[object], action.answer), ...))


def example(action: Action) -> JsonObject:
    found: JsonObject = {"msg_code": "RESTAPI000", "msg": action.msg, "token": "…the next single-use token…"}
    if action.answer is not None:
        found["data"] = action.dump(action.example)
    return found


def document(app: FastAPI, base_path: str) -> JsonObject:
    """The document of `app` (its title, version and summary) and of every declared action."""
    models: list[tuple[type[BaseModel], Mode]] = [(found.request, "validation") for found in CATALOG.actions]
    models += [(answer_model(found), "serialization") for found in CATALOG.actions]
    models.append((AuthenticateRequest, "validation"))
    _, definitions = models_json_schema(models, ref_template=REF)
    schemas = definitions.get("$defs", {})
    assert isinstance(schemas, dict)
    for found in CATALOG.actions:
        _declare_request(schemas, found)
    authenticate = schemas[AuthenticateRequest.__name__]
    assert isinstance(authenticate, dict)
    authenticate["required"] = AUTHENTICATE_FIELDS  # a missing one is answered as a wrong one, but send all four
    paths: JsonObject = {f"{base_path}/{group}": _group_path(group) for group in CATALOG.groups}
    paths[f"{base_path}/authenticate"] = _authenticate_path()
    paths[f"{base_path}/healthz"] = _probe("The process is up")
    paths[f"{base_path}/readyz"] = _probe("Ready when the database and Temporal answer and a worker is alive")
    return {
        "openapi": "3.1.0",
        "info": {"title": app.title, "version": app.version, "summary": app.summary},
        "paths": paths,
        "components": {"schemas": schemas},
    }


def _declare_request(schemas: JsonObject, action: Action) -> None:
    """The request's `action` (its names) and `source` (the values its declaration accepts, checked
    case-insensitively; LINEUP_EXTRA_SOURCES adds more at run time), so generated clients send ones that pass."""
    schema = schemas[action.request.__name__]
    assert isinstance(schema, dict)
    properties = schema.setdefault("properties", {})
    assert isinstance(properties, dict)
    declared: list[JsonValue] = list(action.names)
    properties["action"] = {"type": "string", "enum": declared, "title": "Action"}
    sources: list[JsonValue] = [*sorted(action.sources | {PORTAL_SOURCE})]
    properties["source"] = {"type": "string", "enum": sources, "title": "Source"}
    required = [str(name) for name in cast(list[JsonValue], schema.get("required", []))]
    names: list[JsonValue] = [*sorted({*required, "action", *(["source"] if action.source_required else [])})]
    schema["required"] = names


def _group_path(group: str) -> JsonObject:
    actions = CATALOG.in_group(group)
    requests: list[type[ActionRequest]] = list(dict.fromkeys(found.request for found in actions))
    mapping: JsonObject = {name: REF.format(model=found.request.__name__) for found in actions for name in found.names}
    answers: list[JsonValue] = [{"$ref": REF.format(model=answer_name(found))} for found in actions]
    examples: JsonObject = {found.name: {"summary": found.name, "value": example(found)} for found in actions}
    return {
        "post": {
            "tags": [group],
            "operationId": group,
            "summary": ", ".join(found.name for found in actions),
            "description": "\n\n".join(f"**{found.name}**: {found.summary}" for found in actions),
            "parameters": [TOKEN_HEADER],
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "oneOf": [{"$ref": REF.format(model=model.__name__)} for model in requests],
                            "discriminator": {"propertyName": "action", "mapping": mapping},
                        }
                    }
                },
            },
            "responses": {
                "200": {
                    "description": "The envelope; a refusal is the same envelope with its msg_code and errors",
                    "content": {"application/json": {"schema": {"oneOf": answers}, "examples": examples}},
                }
            },
        }
    }


def _authenticate_path() -> JsonObject:
    return {
        "post": {
            "tags": ["authentication"],
            "operationId": "authenticate",
            "summary": "Checks vendor, username, password and PIN; answers a token and the session's login-log OTP",
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": REF.format(model="AuthenticateRequest")}}},
            },
            "responses": {"200": {"description": "The envelope with the session's first token"}},
        }
    }


def _probe(summary: str) -> JsonObject:
    return {"get": {"tags": ["health"], "summary": summary, "responses": {"200": {"description": "The envelope"}}}}


ASSETS = Path(fastapi_offline.__file__).parent / "static"


# Swagger UI's validator badge would fetch an image from validator.swagger.io: off, like any other remote call.
SWAGGER_PARAMETERS = {"validatorUrl": None}


def install(app: FastAPI, *, base_path: str, public: bool) -> None:
    """The document as `app.openapi()`; `/openapi.json`, `/docs` and `/redoc` too when `public` (LINEUP_PUBLIC_DOCS:
    by default in dev, not in production, where every unknown path answers as they then do)."""
    described = document(app, base_path)
    app.openapi = lambda: described  # type: ignore[method-assign]  # FastAPI's own would list the routes instead
    if not public:
        return
    assets = f"{base_path}/docs-assets"
    openapi_url = f"{base_path}/openapi.json"
    app.mount(assets, StaticFiles(directory=ASSETS), name="docs-assets")
    body = pydantic_core.to_json(described)

    @app.get(openapi_url, include_in_schema=False)
    async def openapi_json() -> Response:
        return Response(body, media_type="application/json")

    @app.get(f"{base_path}/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{assets}/swagger-ui-bundle.js",
            swagger_css_url=f"{assets}/swagger-ui.css",
            swagger_favicon_url=f"{assets}/favicon.png",
            swagger_ui_parameters=SWAGGER_PARAMETERS,
            oauth2_redirect_url=None,
        )

    @app.get(f"{base_path}/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{assets}/redoc.standalone.js",
            redoc_favicon_url=f"{assets}/favicon.png",
            with_google_fonts=False,
        )
