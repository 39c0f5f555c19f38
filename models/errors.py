"""LineupError: a refusal with its RESTAPI code. Services and the access checks raise it; the API renders
it as the envelope (api/errors.py)."""

from __future__ import annotations

from models.envelope import MsgCode


class LineupError(Exception):
    """A refusal with its RESTAPI code; `rest_status` overrides the code's status in `rest` mode."""

    def __init__(
        self,
        code: MsgCode,
        msg: str,
        errors: list[str] | None = None,
        *,
        rest_status: int | None = None,
        data: object = None,
    ) -> None:
        super().__init__(msg)
        # Token errors carry no `errors` (interface 7.2); every other refusal repeats its message there.
        if errors is None and code is not MsgCode.TOKEN:
            errors = [msg]
        self.code, self.msg, self.errors, self.rest_status = code, msg, errors, rest_status
        self.data = data  # what the refusal shows beside it (a blacklisted device's data), rarely anything


class TokenRefused(LineupError):
    """A refusal at the token check; `reason` (missing, unknown, used, expired) is for metrics, never the
    answer, which stays the one message decisions.md gives."""

    def __init__(self, reason: str, msg: str) -> None:
        super().__init__(MsgCode.TOKEN, msg)
        self.reason = reason


def refuse(*errors: str, rest_status: int | None = None, data: object = None) -> LineupError:
    """A business or validation refusal: one message is RESTAPI110, several RESTAPI010."""
    if len(errors) == 1:
        return LineupError(MsgCode.ERROR, "Error occurred", list(errors), rest_status=rest_status, data=data)
    return LineupError(MsgCode.MULTIPLE, "Multiple errors", list(errors), rest_status=rest_status, data=data)


def upstream_down(system: str, *, timed_out: bool = False) -> LineupError:
    """An outside system (or Temporal) that stays down after its retries (decisions.md: upstream failure)."""
    return refuse(f"{system} is unavailable, please try again later", rest_status=504 if timed_out else 502)
