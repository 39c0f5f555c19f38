"""Disabling ends access at once, on SQLite and PostgreSQL: after `lineup api-user disable` or `lineup agent
disable`, a token issued before answers as an unknown token does, /authenticate refuses the credentials and the
sessions' login-log OTPs are closed; `enable` lets them log in again."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

import api.auth
import models.crypto
from cli.accounts import AgentSpec, create_agent, create_api_user, set_api_user_active
from cli.main import app as cli
from models.auth import LoginLog
from models.crypto import login_secret
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body

UNKNOWN_TOKEN = {"msg_code": "RESTAPI001", "msg": "Invalid Token", "token": ""}
REFUSED_LOGIN = {"msg_code": "RESTAPI001", "msg": "Invalid credentials!!", "token": ""}
PASSWORD, PIN = "right-pass-1", "2468"


@pytest.fixture
async def api_on(db_url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[ApiClient]:
    monkeypatch.setenv("LINEUP_DATABASE_URL", db_url)  # for the CLI commands, which read the environment
    monkeypatch.setenv("LINEUP_DATA_DIR", str(data_dir))
    async with ApiClient.running(make_settings(data_dir, db_url)) as api:
        yield api


async def lineup(*args: str) -> Any:
    from models.settings import get_settings

    def invoke() -> Any:
        get_settings.cache_clear()
        try:
            return CliRunner().invoke(cli, list(args))
        finally:
            get_settings.cache_clear()

    result = await asyncio.to_thread(invoke)
    assert result.exit_code == 0, result.output
    return result


async def login(api: ApiClient, username: str) -> dict[str, Any]:
    credentials = {"vendor_id": "DEMO", "username": username, "password": PASSWORD, "pin": PIN}
    answer: dict[str, Any] = (await api.post("/authenticate", credentials)).json()
    return answer


async def use(api: ApiClient, token: str, agent: str = "demo.agent") -> dict[str, Any]:
    """A call under the token naming `agent` (an agent's own credentials act as that agent only)."""
    call = body("update_location_coordinate", agent_id=agent, username=agent)
    answer: dict[str, Any] = (await api.post("/agent", call, token=token)).json()
    return answer


async def open_entries(api: ApiClient, otps: list[str]) -> list[str]:
    """Which of these OTPs still name an open login-log entry."""
    hashed = {api.otp_hash(otp): otp for otp in otps}
    async with api.db.transaction() as session:
        query = select(LoginLog.otp).where(col(LoginLog.otp).in_(hashed), col(LoginLog.closed_at).is_(None))
        return [hashed[found] for found in (await session.exec(query)).all()]


async def test_api_user_disable_ends_its_tokens_and_otps_at_once_and_enable_restores_it(api_on):
    username = f"api.{secrets.token_hex(4)}"
    assert await create_api_user(api_on.db, "DEMO", username, PASSWORD, PIN)
    first, second = await login(api_on, username), await login(api_on, username)
    chained = (await use(api_on, first["token"]))["token"]  # a token the session's answers carried

    answer = await lineup("api-user", "disable", "DEMO", username)
    assert answer.output == f"api user {username} disabled\n"
    for token in (chained, second["token"]):
        assert await use(api_on, token) == UNKNOWN_TOKEN == await use(api_on, "never-issued")
    assert await login(api_on, username) == REFUSED_LOGIN
    assert await open_entries(api_on, [first["data"]["login_log_otp"], second["data"]["login_log_otp"]]) == []

    await lineup("api-user", "enable", "DEMO", username)
    assert (await use(api_on, (await login(api_on, username))["token"]))["msg_code"] == "RESTAPI000"


async def test_agent_disable_ends_the_tokens_of_its_api_credentials(api_on):
    username = f"agent.{secrets.token_hex(4)}"
    assert await create_agent(api_on.db, AgentSpec("DEMO", username, PASSWORD, pin=PIN))
    session = await login(api_on, username)

    await lineup("agent", "disable", username)
    assert await use(api_on, session["token"], username) == UNKNOWN_TOKEN
    assert await login(api_on, username) == REFUSED_LOGIN
    assert await open_entries(api_on, [session["data"]["login_log_otp"]]) == []
    named = await api_on.call("/agent", body("update_location_coordinate", agent_id=username, username=username))
    assert named["msg"] == "Invalid Agent Id"

    await lineup("agent", "enable", username)
    relogin = await login(api_on, username)
    assert (await use(api_on, relogin["token"], username))["msg_code"] == "RESTAPI000"


async def test_a_login_in_flight_when_the_user_is_disabled_gets_no_token(api_on, monkeypatch):
    username = f"api.{secrets.token_hex(4)}"
    assert await create_api_user(api_on.db, "DEMO", username, PASSWORD, PIN)
    verify = models.crypto.verify_secret_async

    async def disabled_meanwhile(stored: str | None, offered: str) -> bool:
        if offered == login_secret(PASSWORD, PIN):  # between reading the user and opening its session
            await set_api_user_active(api_on.db, "DEMO", username, False)
        return await verify(stored, offered)

    monkeypatch.setattr(api.auth, "verify_secret_async", disabled_meanwhile)
    assert await login(api_on, username) == REFUSED_LOGIN


async def test_disabling_an_unknown_api_user_is_refused(api_on):
    from models.settings import get_settings

    get_settings.cache_clear()
    result = await asyncio.to_thread(CliRunner().invoke, cli, ["api-user", "disable", "DEMO", "nobody.here"])
    get_settings.cache_clear()
    assert result.exit_code == 1
    assert "api user nobody.here of vendor DEMO does not exist" in result.output
