"""What the client raises. Every message is built from Lineup's own words (msg_code, msg, errors) or the start of
an answer that was not Lineup's; never from what the call sent, so no password, PIN, card or token can end up in
an exception's text or a log line."""

from __future__ import annotations

from collections.abc import Sequence

from lineup_client._json import Json


class ClientError(Exception):
    """Anything the client raises."""


class LineupError(ClientError):
    """Lineup answered with a refusal: `msg_code` (RESTAPI…), `msg` and Lineup's own `errors`."""

    def __init__(
        self, msg_code: str, msg: str, errors: Sequence[str] = (), *, data: Json = None, status: int | None = None
    ) -> None:
        self.msg_code, self.msg, self.errors = msg_code, msg, list(errors)
        self.data = data  # what some refusals show beside the message (a blacklisted device's details)
        self.status = status  # the HTTP status (200 for every envelope unless Lineup runs in `rest` mode)
        super().__init__(f"{msg_code} {msg}" + (f": {'; '.join(self.errors)}" if self.errors else ""))


class AuthenticationError(LineupError):
    """/authenticate refused the vendor, username, password and PIN (or throttled the login); never repeated, so a
    wrong password is one error and not a loop that locks the login."""


class Unavailable(LineupError):
    """Lineup still said "try again later" (an outside system, or its database, down) after every repeat."""


class UnexpectedAnswer(ClientError):
    """The answer was not Lineup's envelope (a proxy's error page, say): `status` and the `start` of its body."""

    QUOTED = 200  # characters of the body kept: enough to recognise the page, not the whole of it

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.start = " ".join(body[: self.QUOTED * 4].decode("utf-8", "replace").split())[: self.QUOTED]
        super().__init__(f"HTTP {status} is not Lineup's envelope: {self.start!r}")


class ConnectionFailed(ClientError):
    """No answer: the connection could not be made or was lost before the answer, after every repeat."""


class TimedOut(ConnectionFailed):
    """No answer within the client's `timeout`, after every repeat."""
