"""The support console's HTTP rules, without a browser: who may sign in, the session cookie and its hash, the
CSRF token on every POST, the idle timeout, the lockout, and HTML (never the envelope) for its own refusals."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os

import pytest
from sqlmodel import select

from models.tables.audit import AuditEntry
from models.tables.support import ConsoleSession
from tests.api.test_database_outage import database_at
from tests.api.test_health import UNREACHABLE_DB
from tests.console.conftest import PASSWORD, csrf_of, sign_in
from tests.support.app import reconfigure

FORGED = "This form did not come from your console session"


async def sessions(api) -> list[ConsoleSession]:
    async with api.db.transaction() as session:
        return list((await session.exec(select(ConsoleSession))).all())


async def test_a_support_agent_signs_in_and_only_the_hash_of_the_cookie_is_stored(api, console):
    unsigned = await console.get("/console")
    assert (unsigned.status_code, unsigned.headers["location"]) == (303, "/console/login")
    login_page = await console.get("/console/login")
    assert login_page.headers["content-type"].startswith("text/html")
    assert "script-src" not in login_page.headers["content-security-policy"]  # no JavaScript at all

    signed = await sign_in(console)
    assert (signed.status_code, signed.headers["location"]) == (303, "/console")
    cookie = next(value for value in signed.headers.get_list("set-cookie") if value.startswith("lineup_console="))
    assert {"HttpOnly", "SameSite=strict", "Path=/console"} <= {part.strip() for part in cookie.split(";")}
    assert "Secure" not in cookie  # dev profile: served over plain HTTP by `make run`
    token = console.cookies["lineup_console"]
    [stored] = await sessions(api)
    assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest() and token not in str(stored)

    home = await console.get("/console")
    assert home.status_code == 200 and "Stuck lines" in home.text and "demo.support · DEMO" in home.text
    async with api.db.transaction() as session:
        audited = (await session.exec(select(AuditEntry).where(AuditEntry.action == "console_sign_in"))).all()
    assert [(row.agent_username, row.msg_code, row.vendor_id is not None) for row in audited] == [
        ("demo.support", "RESTAPI000", True)
    ]


@pytest.mark.parametrize(
    ("username", "password", "error"),
    [
        ("demo.support", "wrong-pass", "Invalid username or password"),
        ("nobody.here", PASSWORD, "Invalid username or password"),
        ("demo.inactive", PASSWORD, "Invalid username or password"),
        ("demo.agent", PASSWORD, "Only agents with the support role may use the console"),
        ("", PASSWORD, "username: String should have at least 1 character"),
    ],
)
async def test_a_wrong_password_and_an_agent_without_the_support_role_are_refused(
    api, console, username, password, error
):
    refused = await sign_in(console, username, password)
    assert refused.status_code in (400, 401, 403) and error in refused.text
    assert "lineup_console" not in console.cookies and await sessions(api) == []


@pytest.mark.parametrize("settings_overrides", [{"login_max_failures": 2}])
async def test_sign_in_is_throttled_by_the_agent_lockout_before_the_password_is_checked(console):
    for _ in range(2):
        assert "Invalid username or password" in (await sign_in(console, password="wrong-pass")).text
    locked = await sign_in(console)  # the right password, refused unread
    assert locked.status_code == 429 and "Too many failed logins; try again later" in locked.text


async def test_every_post_needs_the_sessions_csrf_token(api, console):
    no_token = await console.post("/console/login", data={"username": "demo.support", "password": PASSWORD})
    assert no_token.status_code == 403 and FORGED in no_token.text
    assert no_token.headers["content-type"].startswith("text/html")
    await sign_in(console)
    page = await console.get("/console/search")
    token = csrf_of(page.text)
    for form in ({}, {"csrf": "forged"}, {"csrf": token[:-1] + "0" if token[-1] != "0" else token[:-1] + "1"}):
        for action in ("retry", "activate"):
            refused = await console.post(f"/console/lines/E123/{action}", data=form)
            assert refused.status_code == 403 and FORGED in refused.text, (action, form)
        assert (await console.post("/console/logout", data=form)).status_code == 403
    # With the token, the request gets through to the operation (this line is not the vendor's: not found).
    answered = await console.post("/console/lines/E123/retry", data={"csrf": token})
    assert answered.status_code == 404 and "No customer found against this enrolment ID" in answered.text
    async with api.db.transaction() as session:
        audited = (await session.exec(select(AuditEntry).where(AuditEntry.action == "retry_enrollment"))).all()
    assert [(row.agent_username, row.msg_code, row.path) for row in audited] == [
        ("demo.support", "RESTAPI110", "/console/lines/E123/retry")
    ]


async def test_an_idle_session_ends_and_sign_out_ends_it_at_once(api, console):
    await sign_in(console)
    reconfigure(api.app, console_idle_minutes=0.01)  # 0.6 s
    await asyncio.sleep(0.8)
    ended = await console.get("/console")
    assert (ended.status_code, ended.headers["location"]) == (303, "/console/login?ended=1")
    assert "lineup_console" not in console.cookies and await sessions(api) == []
    assert "Your session has ended. Sign in again." in (await console.get("/console/login?ended=1")).text

    reconfigure(api.app, console_idle_minutes=30)
    await sign_in(console)
    token = console.cookies["lineup_console"]
    signed_out = await console.post("/console/logout", data={"csrf": csrf_of((await console.get("/console")).text)})
    assert (signed_out.status_code, signed_out.headers["location"]) == (303, "/console/login")
    assert await sessions(api) == []
    console.cookies.set("lineup_console", token, path="/console")  # a copy of the old cookie opens nothing
    assert (await console.get("/console")).headers["location"] == "/console/login?ended=1"


async def test_unknown_console_pages_answer_html_and_the_openapi_document_has_no_console(api, console):
    await sign_in(console)
    unknown = (("GET", "/console/nope"), ("POST", "/console/nope/deeper"), ("GET", "/console/lines/E1/retry"))
    for method, path in unknown:
        answer = await console.request(method, path)
        assert answer.status_code == 404 and "There is no such page" in answer.text, path
    bad_search = await console.get("/console/search", params={"q": "no spaces allowed"})
    assert bad_search.status_code == 400 and "must be letters and digits only" in bad_search.text
    assert "/console" not in (await console.get("/openapi.json")).text
    elsewhere = await api.post("/nothing", {"action": "x"})  # the rest of the API still answers the envelope
    assert elsewhere.json()["msg"] == "Module does not exist"


@pytest.mark.parametrize(
    "settings_overrides",
    [{"profile": "production", "encryption_key": base64.urlsafe_b64encode(os.urandom(32)).decode()}],
)
async def test_in_production_the_cookies_are_secure(console):
    page = await console.get("/console/login")
    login_cookie = page.headers["set-cookie"]
    assert login_cookie.startswith("lineup_console_login=") and "Secure" in login_cookie
    signed = await console.post(
        "/console/login", data={"csrf": csrf_of(page.text), "username": "demo.support", "password": PASSWORD},
        cookies={"lineup_console_login": console.cookies["lineup_console_login"]},
    )  # fmt: skip
    session_cookie = next(c for c in signed.headers.get_list("set-cookie") if c.startswith("lineup_console="))
    assert {"Secure", "HttpOnly", "SameSite=strict"} <= {part.strip() for part in session_cookie.split(";")}


async def test_a_console_page_during_a_database_outage_is_a_page_saying_so_not_the_envelope(api, console):
    await sign_in(console)
    async with database_at(api, UNREACHABLE_DB):
        page = await console.get("/console")
    assert page.status_code == 503 and page.headers["content-type"].startswith("text/html")
    assert "The database is unavailable, please try again later" in page.text and "msg_code" not in page.text
