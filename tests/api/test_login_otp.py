"""Login-log OTPs close, on SQLite and PostgreSQL: they expire LINEUP_LOGIN_OTP_TTL_HOURS after /authenticate,
close on logout and on a password change, and wrong ones are throttled per API user (LINEUP_LOGIN_OTP_MAX_FAILURES
in LINEUP_LOGIN_OTP_WINDOW_SECONDS), however many are sent at once."""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from cli.accounts import AgentSpec, create_agent, create_api_user
from models.auth import ApiToken, ApiUser, LoginLog
from models.types import utcnow
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body

INVALID_OTP = "Please provide valid otp"
TOO_MANY = "Too many wrong OTPs; try again later"
PASSWORD, PIN = "right-pass-1", "2468"
ALLOWED = 5  # LINEUP_LOGIN_OTP_MAX_FAILURES's default


@pytest.fixture
async def api_on(db_url: str, data_dir: Path) -> AsyncIterator[ApiClient]:
    async with ApiClient.running(make_settings(data_dir, db_url)) as api:
        yield api


async def new_user(api: ApiClient) -> str:
    username = f"api.{secrets.token_hex(4)}"
    assert await create_api_user(api.db, "DEMO", username, PASSWORD, PIN)
    return username


async def login(api: ApiClient, username: str) -> dict[str, Any]:
    credentials = {"vendor_id": "DEMO", "username": username, "password": PASSWORD, "pin": PIN}
    answer: dict[str, Any] = (await api.post("/authenticate", credentials)).json()
    assert answer["msg_code"] == "RESTAPI000", answer
    return answer


async def located(api: ApiClient, otp: Any, username: str, agent: str = "demo.agent") -> str:
    """update_location_coordinate of `agent` under the OTP, with a token of `username`: "accepted" or the refusal
    (an agent's own credentials act as that agent only)."""
    call = body("update_location_coordinate", login_log_otp=otp, agent_id=agent, username=agent)
    answer = (await api.post("/agent", call, token=await api.token(username=username))).json()
    return "accepted" if answer["msg_code"] == "RESTAPI000" else str(answer["errors"][0])


async def age(api: ApiClient, otp: str, by: timedelta) -> None:
    async with api.db.transaction() as session:
        entry = col(LoginLog.otp) == api.otp_hash(otp)
        await session.execute(update(LoginLog).where(entry).values(opened_at=utcnow() - by))


async def test_an_otp_expires_after_the_ttl(api_on):
    username = await new_user(api_on)
    young, old = (await login(api_on, username))["data"], (await login(api_on, username))["data"]
    await age(api_on, young["login_log_otp"], timedelta(hours=23, minutes=59))
    await age(api_on, old["login_log_otp"], timedelta(hours=24, minutes=1))
    assert await located(api_on, young["login_log_otp"], username) == "accepted"
    assert await located(api_on, old["login_log_otp"], username) == INVALID_OTP
    check = body("check_signature", login_log_otp=old["login_log_otp"])
    assert (await api_on.call("/agent", check))["errors"] == [INVALID_OTP]


async def test_logout_closes_the_sessions_otp_and_ends_its_tokens(api_on):
    username = await new_user(api_on)
    session, other = await login(api_on, username), await login(api_on, username)
    chained = (await api_on.post("/agent", body("update_location_coordinate"), token=session["token"])).json()

    answer = (await api_on.post("/auth", {"action": "logout"}, token=chained["token"])).json()
    assert answer == {"msg_code": "RESTAPI000", "msg": "Logged out", "token": ""}
    assert await located(api_on, session["data"]["login_log_otp"], username) == INVALID_OTP
    # No token of the session is left, the one minted for logout's own answer included.
    async with api_on.db.transaction() as db:
        hashed = api_on.otp_hash(session["data"]["login_log_otp"])
        entry = (await db.exec(select(LoginLog.id).where(LoginLog.otp == hashed))).one()
        assert (await db.exec(select(ApiToken.id).where(ApiToken.login_log_id == entry))).all() == []
    # The same user's other session goes on.
    assert await located(api_on, other["data"]["login_log_otp"], username) == "accepted"
    still = (await api_on.post("/agent", body("update_location_coordinate"), token=other["token"])).json()
    assert still["msg_code"] == "RESTAPI000"


async def test_wrong_otps_sent_at_once_are_throttled_per_api_user(api_on):
    username, bystander = await new_user(api_on), await new_user(api_on)
    right = (await login(api_on, username))["data"]["login_log_otp"]
    wrong = "000000"  # never issued: OTPs have no leading zero

    outcomes = await asyncio.gather(*(located(api_on, wrong, username) for _ in range(3 * ALLOWED)))
    assert Counter(outcomes) == {INVALID_OTP: ALLOWED, TOO_MANY: 2 * ALLOWED}
    assert await located(api_on, right, username) == TOO_MANY  # until the window ends, right ones too
    check = (
        await api_on.post(
            "/agent", body("check_signature", login_log_otp=right), token=await api_on.token(username=username)
        )
    ).json()
    assert check["errors"] == [TOO_MANY]
    assert await located(api_on, right, bystander) == "accepted"  # another API user is not held back

    async with api_on.db.transaction() as session:  # the window ends
        ended = utcnow() - timedelta(seconds=901)
        await session.execute(update(ApiUser).where(col(ApiUser.username) == username).values(otp_window_start=ended))
    assert await located(api_on, right, username) == "accepted"


async def test_right_otps_are_not_counted_as_guesses(api_on):
    username = await new_user(api_on)
    right = (await login(api_on, username))["data"]["login_log_otp"]
    for _ in range(2 * ALLOWED):
        assert await located(api_on, right, username) == "accepted"
    assert await located(api_on, "000000", username) == INVALID_OTP


async def test_a_password_change_closes_the_agents_other_sessions_otps(stack):
    username = f"agent.{secrets.token_hex(4)}"
    spec = AgentSpec("DEMO", username, PASSWORD, pin=PIN, email=f"{username}@demo.example")
    assert await create_agent(stack.db, spec)
    session, other = await login(stack, username), await login(stack, username)

    change = body("agent_change_password", agent_id=username)
    changed = (await stack.post("/auth", change, token=session["token"])).json()
    assert changed["msg_code"] == "RESTAPI000", changed
    assert await located(stack, other["data"]["login_log_otp"], username, username) == INVALID_OTP
    # The session that changed the password goes on, as its token does.
    assert await located(stack, session["data"]["login_log_otp"], username, username) == "accepted"
