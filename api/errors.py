"""LineupError and the handlers that turn every failure into the envelope."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.envelope import respond
from api.messages import describe
from api.middleware import BodyTooLarge
from models.envelope import Envelope, MsgCode

class LineupError(Exception):
    """A refusal with its RESTAPI code; `rest_status` overrides the code's status in `rest` mode."""

    def __init__(
        self, code: MsgCode, msg: str, errors: list[str] | None = None, *, rest_status: int | None = None
    ) -> None:
        super().__init__(msg)
        # Token errors carry no `errors` (interface 7.2); every other refusal repeats its message there.
        if errors is None and code is not MsgCode.TOKEN:
            errors = [msg]
        self.code, self.msg, self.errors, self.rest_status = code, msg, errors, rest_status


def refuse(*errors: str, rest_status: int | None = None) -> LineupError:
    """A business or validation refusal: one message is RESTAPI110, several RESTAPI010."""
    if len(errors) == 1:
        return LineupError(MsgCode.ERROR, "Error occurred", list(errors), rest_status=rest_status)
    return LineupError(MsgCode.MULTIPLE, "Multiple errors", list(errors), rest_status=rest_status)


def upstream_down(system: str, *, timed_out: bool = False) -> LineupError:
    return refuse(f"{system} is unavailable, please try again later", rest_status=504 if timed_out else 502)


async def on_lineup_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LineupError)
    envelope = Envelope(msg_code=exc.code, msg=exc.msg, errors=exc.errors)
    return respond(request, envelope, rest_status=exc.rest_status)


async def on_invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    messages = list(dict.fromkeys(message for problem in exc.errors() for message in describe(problem)))
    return await on_lineup_error(request, refuse(*messages))


async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own 404/405 become module and method errors, in the order decisions.md gives."""
    assert isinstance(exc, StarletteHTTPException)
    if request.method != "POST" or exc.status_code == 405:
        error = LineupError(MsgCode.TOKEN, "Invalid Access!!", rest_status=405)
    elif exc.status_code == 404:
        root = request.url.path.rstrip("/") == request.app.state.settings.base_path.rstrip("/")
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


def install(app: FastAPI) -> None:
    handlers: dict[Any, Any] = {
        LineupError: on_lineup_error,
        RequestValidationError: on_invalid_request,
        StarletteHTTPException: on_http_error,
    }
    for exc_type, handler in handlers.items():
        app.add_exception_handler(exc_type, handler)
