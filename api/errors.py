"""The handlers that turn every failure (LineupError, validation, Starlette's own, a database outage) into the
envelope."""

from __future__ import annotations

import logging
from typing import Any

import asyncpg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy import exc as sql
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.console.pages import problem
from api.console.session import console_path
from api.envelope import respond
from api.messages import describe
from api.middleware import BodyTooLarge
from models.envelope import Envelope, MsgCode
from models.errors import LineupError, refuse
from persistence.errors import database_unavailable
from services.authenticate import INVALID

log = logging.getLogger("lineup.access")
DATABASE_DOWN = "The database is unavailable, please try again later"


async def on_lineup_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LineupError)
    envelope = Envelope(msg_code=exc.code, msg=exc.msg, errors=exc.errors)
    return respond(request, envelope, rest_status=exc.rest_status)


MOST_ERRORS = 50  # one answer names at most this many problems: a body of 100,000 bad items is one answer


async def on_invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    messages = capped(list(dict.fromkeys(message for problem in exc.errors() for message in describe(problem))))
    if getattr(request.scope.get("route"), "name", None) == "authenticate":
        # A credential that cannot be right (too long, not text) is answered as a wrong one.
        return await on_lineup_error(request, LineupError(MsgCode.TOKEN, INVALID, messages, rest_status=401))
    return await on_lineup_error(request, refuse(*messages))


def capped(messages: list[str]) -> list[str]:
    if len(messages) <= MOST_ERRORS:
        return messages
    return [*messages[:MOST_ERRORS], f"… and {len(messages) - MOST_ERRORS:,} more problems"]


async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own 404/405 become module and method errors, in the order decisions.md gives."""
    assert isinstance(exc, StarletteHTTPException)
    if request.method != "POST" or exc.status_code == 405:
        error = LineupError(MsgCode.TOKEN, "Invalid Access!!", rest_status=405)
    elif exc.status_code == 404:
        root = request.url.path.rstrip("/") == request.app.state.settings.api.base_path.rstrip("/")
        error = (
            LineupError(MsgCode.MODULE_REQUIRED, "Module required")
            if root
            else LineupError(MsgCode.MODULE_UNKNOWN, "Module does not exist")
        )
    elif isinstance(exc.__cause__, BodyTooLarge):
        error = refuse(str(exc.__cause__), rest_status=413)
    else:
        error = refuse(str(exc.detail), rest_status=exc.status_code)
    return await on_lineup_error(request, error)


async def on_database_error(request: Request, exc: Exception) -> Response:
    """A database that cannot be reached is an outage, answered as Temporal's and the carrier's are (503 in
    `rest` mode; the support console's pages say it in a page of their own); any other database error is a
    bug, left to the last-resort 500 (api.middleware)."""
    if not database_unavailable(exc):
        raise exc
    log.warning("database unavailable: %s", exc, extra={"request_id": request.state.request_id})
    request.state.database_down = True  # no audit row: writing one would wait on the same outage
    if request.url.path.startswith(console_path(request)):
        return problem(request, 503, "The console is unavailable", DATABASE_DOWN)
    return await on_lineup_error(request, refuse(DATABASE_DOWN, rest_status=503))


def install(app: FastAPI) -> None:
    handlers: dict[Any, Any] = {
        LineupError: on_lineup_error,
        RequestValidationError: on_invalid_request,
        StarletteHTTPException: on_http_error,
        # Where a database outage surfaces: the driver's wrapped errors, the pool's wait, a refused socket.
        sql.DBAPIError: on_database_error,
        sql.TimeoutError: on_database_error,
        asyncpg.PostgresError: on_database_error,
        OSError: on_database_error,
    }
    for exc_type, handler in handlers.items():
        app.add_exception_handler(exc_type, handler)
