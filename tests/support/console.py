"""The support console as its tests drive it: the demo agents' password, the CSRF token of a page, signing in
as a browser posts the form, and screenshots kept as artifacts of the run (.artifacts/console)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx

ARTIFACTS = Path(__file__).resolve().parents[2] / ".artifacts" / "console"
PASSWORD = "agent-pass-1"  # every demo agent's (cli/demo.py)
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(page: str) -> str:
    found = _CSRF.search(page)
    assert found is not None, page
    return found[1]


async def sign_in(http: httpx.AsyncClient, username: str = "demo.support", password: str = PASSWORD) -> httpx.Response:
    """The sign-in form as a browser posts it: the login page's CSRF token, then the credentials."""
    page = await http.get("/console/login")
    form = {"csrf": csrf_of(page.text), "username": username, "password": password}
    return await http.post("/console/login", data=form)


async def screenshot(page: Any, name: str) -> Path:
    """Kept as an artifact of the run (.artifacts/console, not committed)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path
