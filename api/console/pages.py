"""Rendering the console's pages: Jinja2 templates (autoescaped), the stylesheet, and the headers every page
carries. The pages have no JavaScript, so the Content-Security-Policy allows none at all."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from api.console.session import console_path

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=HERE / "templates")
STYLESHEET = (HERE / "static" / "console.css").read_text()

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
        "base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",  # pages show customers' lines: not for a shared cache or the back button
}


def html(request: Request, template: str, *, status: int = 200, **context: object) -> HTMLResponse:
    context = {"console": console_path(request), **context}
    response = templates.TemplateResponse(request, template, context, status_code=status)
    response.headers.update(HEADERS)
    return response


def problem(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    """A page for a refused request (403, 404): the console answers HTML, never the API's envelope."""
    return html(request, "problem.html", status=status, title=title, message=message)


def redirect(request: Request, page: str = "", **query: str) -> RedirectResponse:
    """303 See Other: after a POST, the browser GETs the page (Post/Redirect/Get)."""
    target = f"{console_path(request)}{page}" + (f"?{urlencode(query)}" if query else "")
    return RedirectResponse(target, status_code=303, headers=HEADERS)


def stylesheet() -> Response:
    return Response(STYLESHEET, media_type="text/css", headers={"Cache-Control": "max-age=3600"})
