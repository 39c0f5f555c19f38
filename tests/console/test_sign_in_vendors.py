"""Issue 35, finding 14: the console's sign-in without a vendor id answered "enter your vendor id as well" for any
password when a username named support agents of two vendors, and so told who has one. Now the password picks
among them: a wrong one answers as it does for a name one vendor has; only a password that is right at more than
one vendor asks for the vendor id."""

from __future__ import annotations

import re
import secrets
from typing import Any

import httpx

from cli.accounts import AgentSpec, create_agent
from tests.support.console import csrf_of

INVALID = "Invalid username or password"
WHICH_VENDOR = "Agents of several vendors have this username: enter your vendor id as well"
_ERROR = re.compile(r'<p class="error" role="alert">([^<]*)</p>')


async def support_agent(api: Any, vendor: str, username: str, password: str) -> None:
    spec = AgentSpec(vendor, username, password, roles=("agent", "support"), api_password=f"api-{password}")
    assert await create_agent(api.db, spec)


async def sign_in(http: httpx.AsyncClient, username: str, password: str, **vendor: str) -> tuple[int, str | None]:
    """The status and, for a refusal, the words the page shows; the cookies cleared for the next try."""
    page = await http.get("/console/login")
    form = {"csrf": csrf_of(page.text), "username": username, "password": password, **vendor}
    answer = await http.post("/console/login", data=form)
    http.cookies.clear()
    shown = _ERROR.search(answer.text)
    return answer.status_code, shown[1] if shown else None


async def test_a_wrong_password_answers_alike_whether_one_vendor_or_two_have_the_name(api, console):
    alone, shared = f"solo{secrets.token_hex(3)}", f"both{secrets.token_hex(3)}"
    await support_agent(api, "DEMO", alone, "solo-pass-1")
    await support_agent(api, "DEMO", shared, "demo-side-1")
    await support_agent(api, "OTHER", shared, "other-side-1")
    wrong = [await sign_in(console, name, "not-the-password") for name in (alone, shared, "nobody.at.all")]
    assert wrong == [(401, INVALID)] * 3


async def test_the_password_picks_the_vendor_among_agents_of_one_name(api, console):
    shared = f"both{secrets.token_hex(3)}"
    await support_agent(api, "DEMO", shared, "demo-side-1")
    await support_agent(api, "OTHER", shared, "other-side-1")
    for password, vendor in (("demo-side-1", "DEMO"), ("other-side-1", "OTHER")):
        page = await console.get("/console/login")
        signed = await console.post(
            "/console/login", data={"csrf": csrf_of(page.text), "username": shared, "password": password}
        )
        assert signed.status_code == 303, signed.text
        assert f"{shared} · {vendor}" in (await console.get("/console")).text
        console.cookies.clear()


async def test_only_a_password_right_at_two_vendors_asks_for_the_vendor_id(api, console):
    shared = f"both{secrets.token_hex(3)}"
    for vendor in ("DEMO", "OTHER"):
        await support_agent(api, vendor, shared, "same-pass-1")
    assert await sign_in(console, shared, "same-pass-1") == (401, WHICH_VENDOR)
    assert await sign_in(console, shared, "same-pass-1", vendor_id="other") == (303, None)
