"""What the sync and async clients share, without any I/O: the body a call sends, the envelope read from an answer,
and what the call does next after each answer or lost connection (return, heal the token chain, repeat later, or
give up). Lineup's rules it follows are in the README's "How a call answers" and docs/clients.md."""

from __future__ import annotations

import json
import logging
import random
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx

from lineup_client._json import Json
from lineup_client.errors import (
    AuthenticationError,
    ClientError,
    ConnectionFailed,
    LineupError,
    TimedOut,
    Unavailable,
    UnexpectedAnswer,
)

log = logging.getLogger("lineup_client")

SUCCESS, TOKEN_REFUSED, ERROR = "RESTAPI000", "RESTAPI001", "RESTAPI110"
# A token refused at the token check, before the action ran: a new chain and the same request are safe.
TOKEN_PROBLEMS = frozenset({"Invalid Token", "Token already used", "Token expire"})
EXPIRED = "Token expire"
# Lineup's outage answers ("The carrier is unavailable, please try again later", the database's) and a payment
# still settling ("ask again in a minute"): the request did nothing yet, or its repeat is answered from it.
LATER = ("please try again later", "ask again in a minute")
# What a proxy (or Lineup in `rest` mode) answers while the service is away: worth the same repeat.
GATEWAY_STATUSES = frozenset({502, 503, 504})


@dataclass(frozen=True)
class Retry:
    """How a call that may not have happened is repeated: at most `repeats` more times, waiting `backoff` seconds
    doubling up to `max_backoff` (each wait drawn between half and all of it, so callers that failed together do
    not come back together)."""

    repeats: int = 3
    backoff: float = 0.5
    max_backoff: float = 8.0

    def delay(self, repeat: int) -> float:
        ceiling = min(self.max_backoff, self.backoff * 2 ** (repeat - 1))
        return random.uniform(ceiling / 2, ceiling)


@dataclass(frozen=True)
class Envelope:
    status: int
    msg_code: str
    msg: str
    errors: tuple[str, ...] = ()
    token: str | None = None  # the chain's next token; "" or absent: the chain ends here
    data: Json = None

    @property
    def later(self) -> bool:
        """Lineup asks for the same request again later."""
        outage = self.msg_code == ERROR and any(text.endswith(LATER) for text in self.errors)
        return outage or self.status == 503

    def refusal(self, kind: type[LineupError] = LineupError) -> LineupError:
        return kind(self.msg_code, self.msg, self.errors, data=self.data, status=self.status)


def read_envelope(status: int, content: bytes) -> Envelope:
    """The envelope of an answer, or UnexpectedAnswer quoting what came instead."""
    try:
        found = json.loads(content)
    except ValueError:
        raise UnexpectedAnswer(status, content) from None
    if not isinstance(found, dict) or not isinstance(found.get("msg_code"), str) or "msg" not in found:
        raise UnexpectedAnswer(status, content)
    errors = found.get("errors") or []
    token = found.get("token")
    return Envelope(
        status=status,
        msg_code=found["msg_code"],
        msg=str(found["msg"]),
        errors=tuple(str(text) for text in errors) if isinstance(errors, list) else (str(errors),),
        token=token if isinstance(token, str) and token else None,
        data=found.get("data"),
    )


@dataclass(frozen=True)
class Step:
    """What a call does after one answer or lost connection."""

    token: str | None = None  # the chain's next token: back to the pool
    done: bool = False  # `data` is the call's result
    data: Json = None
    wait: float = 0.0  # otherwise the request goes again after this long…
    fresh: bool = False  # …on a chain of its own, just authenticated (its token was refused)
    stale: bool = False  # the newest idle token expired, so every idle one did: drop them
    error: ClientError | None = None  # or the call ends with this


def transaction_id() -> str:
    """An external_transaction_id of the client's making: letters and digits, 32 of them."""
    return uuid.uuid4().hex


def path_of(path: str) -> str:
    """`plan`, `/plan` and `/plan/` are one path, whatever the base URL ends with."""
    return "/" + path.strip("/")


@dataclass
class Attempts:
    """What is left of one call's repeats, and why it is on the next one."""

    retry: Retry
    what: str  # `/customer create_customer_prepaid_multiline`, for the log: never the body
    repeats: int = 0
    healed: bool = False

    def again(self, reason: str) -> float | None:
        """The wait before one more repeat, or None when there is none left."""
        if self.repeats >= self.retry.repeats:
            return None
        self.repeats += 1
        wait = self.retry.delay(self.repeats)
        log.warning("%s: %s; repeating in %.1f s (%d of %d)", self.what, reason, wait, self.repeats, self.retry.repeats)
        return wait

    def lost(self, error: httpx.TransportError) -> Step:
        """No answer: the request may or may not have reached Lineup, so it goes again with the same id (and a
        chain of its own: the token it carried may be spent)."""
        timed_out = isinstance(error, httpx.TimeoutException)
        reason = "no answer in time" if timed_out else f"connection failed ({type(error).__name__})"
        wait = self.again(reason)
        if wait is not None:
            return Step(wait=wait)
        failure = (TimedOut if timed_out else ConnectionFailed)(f"{self.what}: {reason}, {self.repeats} repeats spent")
        failure.__cause__ = error  # what the transport said (addresses and reasons, never the body or headers)
        return Step(error=failure)

    def unexpected(self, status: int, content: bytes) -> Step:
        """An answer that is not the envelope: a gateway's "come back later" is repeated, anything else raised."""
        if status in GATEWAY_STATUSES and (wait := self.again(f"HTTP {status} from the way there")) is not None:
            return Step(wait=wait)
        return Step(error=UnexpectedAnswer(status, content))


@dataclass
class Call:
    """One call of the client: its body, whose external_transaction_id every repeat shares, and its attempts."""

    path: str
    action: str
    body: dict[str, Json]
    attempts: Attempts

    @classmethod
    def of(
        cls, path: str, action: str, fields: Mapping[str, object], defaults: Mapping[str, str], retry: Retry
    ) -> Call:
        body: dict[str, Json] = {"action": action}
        body.update({name: value for name, value in defaults.items() if fields.get(name) is None})
        body.update({name: _json(value) for name, value in fields.items() if value is not None})
        body["external_transaction_id"] = str(fields.get("external_transaction_id") or transaction_id())
        path = path_of(path)
        return cls(path, action, body, Attempts(retry, f"{path} {action}"))

    def answered(self, status: int, content: bytes) -> Step:
        try:
            envelope = read_envelope(status, content)
        except UnexpectedAnswer:
            return self.attempts.unexpected(status, content)
        if envelope.msg_code == SUCCESS:
            return Step(token=envelope.token, done=True, data=envelope.data)
        if envelope.msg_code == TOKEN_REFUSED and envelope.msg in TOKEN_PROBLEMS and not self.attempts.healed:
            self.attempts.healed = True  # once: a second refusal is not a stale chain but a real problem
            log.info("%s: %s; authenticating again", self.attempts.what, envelope.msg)
            return Step(fresh=True, stale=envelope.msg == EXPIRED)
        if envelope.later and (wait := self.attempts.again("; ".join(envelope.errors) or envelope.msg)) is not None:
            return Step(token=envelope.token, wait=wait)
        return Step(token=envelope.token, error=envelope.refusal(Unavailable if envelope.later else LineupError))


@dataclass
class Login:
    """POST /authenticate with the four credentials; `repr` never shows them."""

    vendor_id: str
    username: str
    password: str = field(repr=False)
    pin: str = field(repr=False)

    def body(self) -> dict[str, str]:
        return {"vendor_id": self.vendor_id, "username": self.username, "password": self.password, "pin": self.pin}

    @staticmethod
    def answered(status: int, content: bytes, attempts: Attempts) -> tuple[Step, str | None]:
        """The step after /authenticate's answer (`token`: the new chain's first) and the session's OTP."""
        try:
            envelope = read_envelope(status, content)
        except UnexpectedAnswer:
            return attempts.unexpected(status, content), None
        if envelope.msg_code == SUCCESS and envelope.token:
            otp = envelope.data.get("login_log_otp") if isinstance(envelope.data, dict) else None
            return Step(token=envelope.token, done=True), str(otp) if otp is not None else None
        if envelope.later and (wait := attempts.again("; ".join(envelope.errors) or envelope.msg)) is not None:
            return Step(wait=wait), None
        kind = AuthenticationError if envelope.msg_code == TOKEN_REFUSED else LineupError
        return Step(error=envelope.refusal(kind)), None


def _json(value: object) -> Json:
    """A field's value as JSON: tuples (and other sequences) as lists, mappings as objects."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(key): _json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json(item) for item in value]
    raise TypeError(f"a field's value must be JSON: {type(value).__name__} is not")
