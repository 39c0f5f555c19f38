"""Parallel guesses cannot outrun the login lockout, on SQLite and PostgreSQL: each attempt is claimed before its
secret is verified, so of 40 concurrent wrong guesses at one account only LINEUP_LOGIN_MAX_FAILURES are verified,
the rest are refused unread, and the right secret is then refused with the lockout message too. Only failures
count: 20 concurrent right logins (more than the limit) all pass and leave the account unlocked, and an attempt
whose process died before it was settled stops holding its slot. For API users (/authenticate), agents' API
passwords (agent_password) and customer logins (saved_card_list)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

import models.crypto
from cli.accounts import AgentSpec, create_agent, create_api_user
from models.auth import Agent, ApiUser, CustomerLogin, Vendor
from models.crypto import hash_secret, login_secret
from models.enrollment.lines import Enrollment, Line, email_hash
from models.types import utcnow
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body

GUESSES = 40
LIMIT = 10  # LINEUP_LOGIN_MAX_FAILURES's default
RIGHT = 20  # concurrent right logins: twice the limit
WRONG = "wrong-guess-1"
LOCKED = "Too many failed logins; try again later"


@pytest.fixture
async def api_on(db_url: str, data_dir: Any) -> AsyncIterator[ApiClient]:
    """The API on each engine (the login counts are one SQL statement that must hold on both)."""
    # The rate per client address (every test request comes from one) out of the way of the counts under test.
    async with ApiClient.running(make_settings(data_dir, db_url, login_address_per_minute=100_000)) as api:
        yield api


@pytest.fixture
def verified(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The secrets offered to argon2, in the order they were verified."""
    offered: list[str] = []
    verify = models.crypto.verify_secret

    def counting(stored: str | None, secret: str) -> bool:
        offered.append(secret)
        return verify(stored, secret)

    monkeypatch.setattr(models.crypto, "verify_secret", counting)
    return offered


@pytest.fixture
def slow_verify(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each verification takes 0.2 s longer (in its thread), so every request of a burst is claimed before the
    first one is settled, whatever the machine's speed."""
    verify = models.crypto.verify_secret

    def slow(stored: str | None, secret: str) -> bool:
        time.sleep(0.2)
        return verify(stored, secret)

    monkeypatch.setattr(models.crypto, "verify_secret", slow)


def refusals(answers: list[Any]) -> Counter[tuple[str, str]]:
    """(msg_code, first error or msg) of each answer, counted."""
    envelopes = [answer.json() for answer in answers]
    return Counter((e["msg_code"], (e.get("errors") or [e["msg"]])[0]) for e in envelopes)


async def test_concurrent_wrong_passwords_for_an_api_user_are_verified_at_most_the_limit(api_on, verified):
    username = f"api.{secrets.token_hex(4)}"
    assert await create_api_user(api_on.db, "DEMO", username, "right-pass-1", "2468")
    login = {"vendor_id": "DEMO", "username": username, "pin": "2468"}

    answers = await asyncio.gather(
        *(api_on.post("/authenticate", {**login, "password": WRONG}) for _ in range(GUESSES))
    )
    assert verified.count(login_secret(WRONG, "2468")) == LIMIT  # one argon2 a login: password and PIN together
    assert refusals(answers) == {
        ("RESTAPI001", "Invalid credentials!!"): LIMIT,
        ("RESTAPI001", LOCKED): GUESSES - LIMIT,
    }
    locked = (await api_on.post("/authenticate", {**login, "password": "right-pass-1"})).json()
    assert locked == {"msg_code": "RESTAPI001", "msg": "Invalid credentials!!", "errors": [LOCKED], "token": ""}


async def test_a_successful_login_clears_the_count(api_on):
    username = f"api.{secrets.token_hex(4)}"
    assert await create_api_user(api_on.db, "DEMO", username, "right-pass-1", "2468")
    login = {"vendor_id": "DEMO", "username": username, "pin": "2468"}
    for password in [WRONG] * (LIMIT - 1) + ["right-pass-1"] + [WRONG] * (LIMIT - 1) + ["right-pass-1"]:
        answer = (await api_on.post("/authenticate", {**login, "password": password})).json()
        assert answer["msg_code"] == ("RESTAPI000" if password == "right-pass-1" else "RESTAPI001"), answer
        assert answer.get("errors") != [LOCKED]


async def test_concurrent_wrong_agent_passwords_are_verified_at_most_the_limit(api_on, verified):
    username = f"secure.{secrets.token_hex(4)}"
    spec = AgentSpec("DEMO", username, "agent-pass-1", api_password="api-pass-1")
    assert await create_agent(api_on.db, spec)

    def call(password: str) -> dict[str, Any]:
        return body("update_location_coordinate", agent_id=username, username=username, agent_password=password)

    tokens = [await api_on.token() for _ in range(GUESSES)]
    answers = await asyncio.gather(*(api_on.post("/agent", call(WRONG), token=token) for token in tokens))
    assert verified.count(WRONG) == LIMIT
    assert refusals(answers) == {
        ("RESTAPI104", "Invalid Agent ID or Password"): LIMIT,
        ("RESTAPI104", LOCKED): GUESSES - LIMIT,
    }
    locked = await api_on.call("/agent", call("api-pass-1"))
    assert (locked["msg_code"], locked["msg"], locked["errors"]) == (
        "RESTAPI104",
        "Invalid Agent ID or Password",
        [LOCKED],
    )


async def customer_line(api: ApiClient, email: str, password: str) -> str:
    """A line of DEMO's with a customer login, stored as intake stores it."""
    enrollment_id = f"E{secrets.token_hex(8).upper()}"
    async with api.db.transaction() as session:
        vendor_id = (await session.exec(select(Vendor.id).where(Vendor.code == "DEMO"))).one()
        assert vendor_id is not None
        session.add(Enrollment(enrollment_id=enrollment_id, vendor_id=vendor_id, zip_code="30301", state="GA"))
        await session.flush()
        session.add(
            Line(
                enrollment_id=enrollment_id,
                parent_enrollment_id=enrollment_id,
                order_id=enrollment_id,
                vendor_id=vendor_id,
                plan_id=102,
                activation_type="NEWACTIVATION",
                enrollment_type="SHIPMENT",
                email_hash=email_hash(api.app.state.resources.cipher, email),
                password_hash=hash_secret(password),
                pii="{}",
            )
        )
    return enrollment_id


async def test_concurrent_wrong_customer_passwords_are_verified_at_most_the_limit(api_on, verified):
    email = f"pat.{secrets.token_hex(4)}@example.com"
    enrollment_id = await customer_line(api_on, email, "line-pass-1")

    def cards(password: str) -> dict[str, Any]:
        return body("saved_card_list", enrollment_id=enrollment_id, username=email, password=password)

    tokens = [await api_on.token() for _ in range(GUESSES)]
    answers = await asyncio.gather(*(api_on.post("/cards", cards(WRONG), token=token) for token in tokens))
    assert verified.count(WRONG) == LIMIT
    assert refusals(answers) == {
        ("RESTAPI110", "Invalid username or password"): LIMIT,
        ("RESTAPI110", LOCKED): GUESSES - LIMIT,
    }
    locked = await api_on.call("/cards", cards("line-pass-1"))
    assert (locked["msg_code"], locked["errors"]) == ("RESTAPI110", [LOCKED])


async def throttle_state(api: ApiClient, table: Any, row: Any) -> tuple[int, int, Any]:
    """(failed_logins, pending_logins, locked_until) of the throttled row."""
    query = select(table.failed_logins, table.pending_logins, table.locked_until).where(row)
    async with api.db.transaction() as session:
        failed, pending, locked_until = (await session.execute(query)).one()
    return failed, pending, locked_until


async def test_concurrent_right_logins_for_an_api_user_all_succeed(api_on, slow_verify):
    username = f"api.{secrets.token_hex(4)}"
    assert await create_api_user(api_on.db, "DEMO", username, "right-pass-1", "2468")
    login = {"vendor_id": "DEMO", "username": username, "password": "right-pass-1", "pin": "2468"}

    answers = await asyncio.gather(*(api_on.post("/authenticate", login) for _ in range(RIGHT)))
    assert refusals(answers) == {("RESTAPI000", "Successfully Authenticate"): RIGHT}
    assert await throttle_state(api_on, ApiUser, col(ApiUser.username) == username) == (0, 0, None)


async def test_concurrent_right_agent_passwords_all_pass(api_on, slow_verify):
    username = f"secure.{secrets.token_hex(4)}"
    assert await create_agent(api_on.db, AgentSpec("DEMO", username, "agent-pass-1", api_password="api-pass-1"))
    call = body("update_location_coordinate", agent_id=username, username=username, agent_password="api-pass-1")

    tokens = [await api_on.token() for _ in range(RIGHT)]
    answers = await asyncio.gather(*(api_on.post("/agent", call, token=token) for token in tokens))
    assert [a.json()["msg_code"] for a in answers] == ["RESTAPI000"] * RIGHT
    assert await throttle_state(api_on, Agent, col(Agent.username) == username) == (0, 0, None)


async def test_concurrent_right_customer_logins_all_pass(api_on, slow_verify):
    email = f"pat.{secrets.token_hex(4)}@example.com"
    enrollment_id = await customer_line(api_on, email, "line-pass-1")
    cards = body("saved_card_list", enrollment_id=enrollment_id, username=email, password="line-pass-1")

    tokens = [await api_on.token() for _ in range(RIGHT)]
    answers = await asyncio.gather(*(api_on.post("/cards", cards, token=token) for token in tokens))
    assert [a.json()["msg_code"] for a in answers] == ["RESTAPI000"] * RIGHT
    row = col(CustomerLogin.enrollment_id) == enrollment_id
    assert await throttle_state(api_on, CustomerLogin, row) == (0, 0, None)


async def test_a_stale_pending_attempt_does_not_block_a_login(api_on):
    """Every slot held by attempts claimed an hour ago (their process died before settling them)."""
    username = f"api.{secrets.token_hex(4)}"
    assert await create_api_user(api_on.db, "DEMO", username, "right-pass-1", "2468")
    row = col(ApiUser.username) == username
    async with api_on.db.transaction() as session:
        await session.execute(
            update(ApiUser).where(row).values(pending_logins=LIMIT, pending_since=utcnow() - timedelta(hours=1))
        )
    login = {"vendor_id": "DEMO", "username": username, "password": "right-pass-1", "pin": "2468"}

    answer = (await asyncio.wait_for(api_on.post("/authenticate", login), timeout=5)).json()
    assert answer["msg_code"] == "RESTAPI000", answer
    assert await throttle_state(api_on, ApiUser, row) == (0, 0, None)
