"""`/docs` (Swagger UI) and `/redoc`, served with their assets from the API itself: the fastapi-offline
package ships them, so the pages render on a machine with no internet (FastAPI's own pages load from a CDN)."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
import pydantic_core
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import JsonValue

ASSETS = Path(fastapi_offline.__file__).parent / "static"
# Swagger UI's validator badge would fetch an image from validator.swagger.io: off, like any other remote call.
SWAGGER_PARAMETERS = {"validatorUrl": None}


def install(app: FastAPI, *, base_path: str, document: dict[str, JsonValue], public: bool) -> None:
    """`/openapi.json` (the document api.openapi built), `/docs` and `/redoc`, when `public` (LINEUP_PUBLIC_DOCS:
    by default in dev, not in production, where every unknown path answers as they then do)."""

    def described() -> dict[str, JsonValue]:
        return document

    app.openapi = described  # type: ignore[method-assign]  # app.openapi() answers the document too
    if not public:
        return
    assets = f"{base_path}/docs-assets"
    openapi_url = f"{base_path}/openapi.json"
    app.mount(assets, StaticFiles(directory=ASSETS), name="docs-assets")
    body = pydantic_core.to_json(document)

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
