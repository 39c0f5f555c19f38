"""`Lineup`, the blocking client (safe to share between threads), and `AsyncLineup`, the asyncio one (safe to share
between tasks). Both send each call with a token of their own chain, authenticating when they have none, and
follow what lineup_client._calls decides after each answer; only the I/O and the waiting differ."""

from __future__ import annotations

import asyncio
import threading
import time
from types import TracebackType
from typing import Self

import httpx

from lineup_client._calls import Attempts, Call, Login, Retry, Step
from lineup_client._json import Json
from lineup_client._pool import TokenPool
from lineup_client.actions import VERSION, AsyncActions, SyncActions

AUTHENTICATE = "/authenticate"
USER_AGENT = f"lineup-client-python/{VERSION}"


class _Settings:
    """What both clients are made of; the credentials stay in `login`, whose repr leaves them out."""

    def __init__(
        self,
        base_url: str,
        *,
        vendor_id: str,
        username: str,
        password: str,
        pin: str,
        source: str | None,
        agent_id: str | None,
        retry: Retry | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")  # with or without a trailing slash, and with any base path
        self.login = Login(str(vendor_id), str(username), str(password), str(pin))
        self.defaults = {name: value for name, value in (("source", source), ("agent_id", agent_id)) if value}
        self.retry = retry or Retry()
        self.pool = TokenPool()
        self.login_log_otp: str | None = None  # the OTP of the newest session this client opened

    def call(self, path: str, action: str, fields: dict[str, object]) -> Call:
        return Call.of(path, action, fields, self.defaults, self.retry)

    def authenticated(self, step: Step, otp: str | None) -> str | None:
        """The new chain's token once /authenticate answered it (keeping the session's OTP)."""
        if step.error is not None:
            raise step.error
        if not step.done or step.token is None:
            return None
        self.login_log_otp = otp or self.login_log_otp
        return step.token

    def settle(self, step: Step) -> bool:
        """Puts the chain's next token back, raises the call's error; True when the call is over."""
        if step.stale:
            self.pool.clear()
        if step.token:
            self.pool.give(step.token)
        if step.error is not None:
            raise step.error
        return step.done


class Lineup(SyncActions):
    """Lineup's client. `source` and `agent_id`, when given, go with every call that does not name its own;
    `timeout` bounds each request (seconds); `max_sessions` bounds the calls in flight, and so the token chains
    (each one /authenticate); `retry` says how a call that may not have happened is repeated."""

    def __init__(
        self,
        base_url: str,
        *,
        vendor_id: str,
        username: str,
        password: str,
        pin: str,
        source: str | None = None,
        agent_id: str | None = None,
        timeout: float = 30.0,
        max_sessions: int = 8,
        retry: Retry | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._settings = _Settings(
            base_url,
            vendor_id=vendor_id,
            username=username,
            password=password,
            pin=pin,
            source=source,
            agent_id=agent_id,
            retry=retry,
        )
        self._sessions = threading.BoundedSemaphore(max_sessions)
        self._http = httpx.Client(
            timeout=timeout, transport=transport, headers={"user-agent": USER_AGENT}, follow_redirects=False
        )

    @property
    def login_log_otp(self) -> str | None:
        """The login-log OTP of the newest session this client opened (check_signature asks for one)."""
        return self._settings.login_log_otp

    def call(self, path: str, action: str, /, **fields: object) -> Json:
        """`data` of the action's answer on RESTAPI000; LineupError (or one of its kinds) otherwise."""
        settings = self._settings
        call = settings.call(path, action, fields)
        with self._sessions:
            step = Step()
            while True:
                token = None if step.fresh else settings.pool.take()
                step = self._post(call, token or self._authenticate(call.attempts))
                if settings.settle(step):
                    return step.data
                time.sleep(step.wait)

    def authenticate(self) -> str | None:
        """Opens a session now (a new chain, kept for the next call) and returns its login-log OTP."""
        self._settings.pool.give(self._authenticate(Attempts(self._settings.retry, AUTHENTICATE)))
        return self.login_log_otp

    def _post(self, call: Call, token: str) -> Step:
        try:
            response = self._http.post(self._settings.base_url + call.path, json=call.body, headers={"token": token})
        except httpx.TransportError as error:
            return call.attempts.lost(error)
        return call.answered(response.status_code, _answer(response))

    def _authenticate(self, attempts: Attempts) -> str:
        settings = self._settings
        while True:
            try:
                response = self._http.post(settings.base_url + AUTHENTICATE, json=settings.login.body())
            except httpx.TransportError as error:
                step, otp = attempts.lost(error), None
            else:
                step, otp = Login.answered(response.status_code, _answer(response), attempts)
            if (token := settings.authenticated(step, otp)) is not None:
                return token
            time.sleep(step.wait)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class AsyncLineup(AsyncActions):
    """Lineup's asyncio client: the same arguments as `Lineup`, and the same methods, awaited."""

    def __init__(
        self,
        base_url: str,
        *,
        vendor_id: str,
        username: str,
        password: str,
        pin: str,
        source: str | None = None,
        agent_id: str | None = None,
        timeout: float = 30.0,
        max_sessions: int = 8,
        retry: Retry | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._settings = _Settings(
            base_url,
            vendor_id=vendor_id,
            username=username,
            password=password,
            pin=pin,
            source=source,
            agent_id=agent_id,
            retry=retry,
        )
        self._sessions = asyncio.Semaphore(max_sessions)
        self._http = httpx.AsyncClient(
            timeout=timeout, transport=transport, headers={"user-agent": USER_AGENT}, follow_redirects=False
        )

    @property
    def login_log_otp(self) -> str | None:
        """The login-log OTP of the newest session this client opened (check_signature asks for one)."""
        return self._settings.login_log_otp

    async def call(self, path: str, action: str, /, **fields: object) -> Json:
        """`data` of the action's answer on RESTAPI000; LineupError (or one of its kinds) otherwise."""
        settings = self._settings
        call = settings.call(path, action, fields)
        async with self._sessions:
            step = Step()
            while True:
                token = None if step.fresh else settings.pool.take()
                step = await self._post(call, token or await self._authenticate(call.attempts))
                if settings.settle(step):
                    return step.data
                await asyncio.sleep(step.wait)

    async def authenticate(self) -> str | None:
        """Opens a session now (a new chain, kept for the next call) and returns its login-log OTP."""
        self._settings.pool.give(await self._authenticate(Attempts(self._settings.retry, AUTHENTICATE)))
        return self.login_log_otp

    async def _post(self, call: Call, token: str) -> Step:
        try:
            url = self._settings.base_url + call.path
            response = await self._http.post(url, json=call.body, headers={"token": token})
        except httpx.TransportError as error:
            return call.attempts.lost(error)
        return call.answered(response.status_code, _answer(response))

    async def _authenticate(self, attempts: Attempts) -> str:
        settings = self._settings
        while True:
            try:
                response = await self._http.post(settings.base_url + AUTHENTICATE, json=settings.login.body())
            except httpx.TransportError as error:
                step, otp = attempts.lost(error), None
            else:
                step, otp = Login.answered(response.status_code, _answer(response), attempts)
            if (token := settings.authenticated(step, otp)) is not None:
                return token
            await asyncio.sleep(step.wait)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


def _answer(response: httpx.Response) -> bytes:
    """The answer's body; for a redirect, words saying it was not followed. None is: the login's password and PIN,
    a call's body and its token go to the base URL only (httpx follows a redirect only when told, and never is)."""
    if response.is_redirect:
        return f"a redirect to {response.headers['location']}, not followed".encode()
    return response.content
