"""The handlers that turn every failure outside the dispatcher (Starlette's 404 and 405, a body refused, a form
that does not validate, a LineupError of /authenticate, a database outage) into the envelope, or into the
console's own page on the console's paths."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import asyncpg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy import exc as sql
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from api.console.pages import problem
from api.console.session import console_path
from api.edge import BodyRefused
from api.envelope import refusal, render
from api.facts import facts_of
from api.problems import describe
from models.envelope import MsgCode
from models.errors import LineupError, refuse
from persistence.errors import database_unavailable

log = logging.getLogger("lineup.access")
DATABASE_DOWN = "The database is unavailable, please try again later"
Handler = Callable[[Request, Exception], Awaitable[Response]]


def answer(request: Request, error: LineupError) -> Response:
    settings = request.app.state.resources.settings.api
    return render(settings, facts_of(request), refusal(error), rest_status=error.rest_status)


async def on_lineup_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LineupError)
    return answer(request, exc)


async def on_invalid_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    found = dict.fromkeys(message for issue in exc.errors() for message in describe(issue))
    return answer(request, refuse(*found))


async def on_body_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BodyRefused)
    if request.url.path.startswith(console_path(request)):
        return problem(request, exc.status, "The request was refused", str(exc))
    return answer(request, refuse(str(exc), rest_status=exc.status))


async def on_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405 become module and method errors, in the order decisions.md gives."""
    assert isinstance(exc, StarletteHTTPException)
    if request.method != "POST" or exc.status_code == 405:
        error = LineupError(MsgCode.TOKEN, "Invalid Access!!", rest_status=405)
    elif exc.status_code == 404:
        root = request.url.path.rstrip("/") == request.app.state.resources.settings.api.base_path.rstrip("/")
        error = (
            LineupError(MsgCode.MODULE_REQUIRED, "Module required")
            if root
            else LineupError(MsgCode.MODULE_UNKNOWN, "Module does not exist")
        )
    else:
        error = refuse(str(exc.detail), rest_status=exc.status_code)
    return answer(request, error)


async def on_database_error(request: Request, exc: Exception) -> Response:
    """A database that cannot be reached is an outage, answered as Temporal's and the carrier's are (503 in
    `rest` mode; the support console's pages say it in a page of their own); any other database error is a
    bug, left to the last-resort 500 (api.edge)."""
    if not database_unavailable(exc):
        raise exc
    facts = facts_of(request)
    log.warning("database unavailable: %s", exc, extra={"request_id": facts.request_id})
    facts.database_down = True  # no audit row: writing one would wait on the same outage
    facts.fresh_token = None  # the claim and the next token were not stored
    if request.url.path.startswith(console_path(request)):
        return problem(request, 503, "The console is unavailable", DATABASE_DOWN)
    return answer(request, refuse(DATABASE_DOWN, rest_status=503))


def install(app: FastAPI) -> None:
    handlers: dict[type[Exception], Handler] = {
        LineupError: on_lineup_error,
        RequestValidationError: on_invalid_request,
        StarletteHTTPException: on_http_error,
        BodyRefused: on_body_refused,
        # Where a database outage surfaces: the driver's wrapped errors, the pool's wait, a refused socket.
        sql.DBAPIError: on_database_error,
        sql.TimeoutError: on_database_error,
        asyncpg.PostgresError: on_database_error,
        OSError: on_database_error,
    }
    for exc_type, handler in handlers.items():
        app.add_exception_handler(exc_type, handler)
