"""The console's cookies and CSRF tokens. The session cookie holds a random token (the database keeps only its
hash): HttpOnly, SameSite=Strict, Secure in production, scoped to the console's path. Every POST carries a CSRF
token: bound to the session (an HMAC of its token), or before sign-in to a cookie of its own (double submit)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Literal, TypedDict

from fastapi import Request
from fastapi.responses import Response

from models.settings import Settings

SESSION_COOKIE = "lineup_console"
LOGIN_COOKIE = "lineup_console_login"  # the sign-in form's CSRF token, before there is a session
CSRF_FIELD = "csrf"


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.resources.settings
    return settings


def console_path(request: Request) -> str:
    return f"{settings_of(request).api.base_path}/console"


class CookieOptions(TypedDict):
    path: str
    httponly: bool
    samesite: Literal["strict"]
    secure: bool


def _options(request: Request) -> CookieOptions:
    """The same for setting a cookie and for deleting it: a browser deletes only the cookie they name."""
    secure = settings_of(request).profile == "production"
    return CookieOptions(path=console_path(request), httponly=True, samesite="strict", secure=secure)


def keep_cookie(request: Request, response: Response, name: str, value: str) -> None:
    response.set_cookie(name, value, **_options(request))


def drop_cookie(request: Request, response: Response, name: str) -> None:
    response.delete_cookie(name, **_options(request))


def session_csrf(session_token: str) -> str:
    """Derived from the session's token: no second secret to store, and useless with any other session."""
    return hmac.new(session_token.encode(), b"lineup-console-csrf", hashlib.sha256).hexdigest()


def login_csrf(request: Request) -> str:
    """The sign-in form's token: the browser's login cookie if it has one (other tabs keep working), else new."""
    offered = request.cookies.get(LOGIN_COOKIE, "")
    return offered if len(offered) == 43 and offered.isascii() else secrets.token_urlsafe(32)


def csrf_matches(expected: str | None, offered: object) -> bool:
    if not expected or not isinstance(offered, str):
        return False
    return hmac.compare_digest(expected.encode(), offered.encode())
