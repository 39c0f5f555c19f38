"""POST /authenticate, single-use tokens, chaining, expiry, login throttling."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlmodel import col, select

import models.crypto
from models.auth import ApiToken, ApiUser, AuditEntry, LoginLog, digest
from models.types import utcnow
from tests.support.builders import body

DEMO = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}


async def test_authenticate_returns_a_token_and_a_login_log_otp(api):
    envelope = (await api.post("/authenticate", DEMO)).json()
    assert envelope["msg_code"] == "RESTAPI000"
    assert envelope["msg"] == "Successfully Authenticate"
    assert len(envelope["token"]) >= 32
    otp = envelope["data"]["login_log_otp"]
    assert len(otp) == 6 and otp.isdigit()
    hashed = api.otp_hash(otp)
    async with api.db.transaction() as session:
        stored = (await session.exec(select(ApiToken))).all()
        assert envelope["token"] not in {t.token_hash for t in stored}
        assert digest(envelope["token"]) in {t.token_hash for t in stored}
        assert (await session.exec(select(LoginLog).where(LoginLog.otp == hashed))).first() is not None
        assert (await session.exec(select(LoginLog).where(LoginLog.otp == otp))).first() is None  # never in clear


@pytest.mark.parametrize(
    ("field", "value"), [("password", "wrong"), ("pin", "9999"), ("username", "nobody"), ("vendor_id", "OTHER")]
)
async def test_authenticate_wrong_credentials_are_refused(api, field, value):
    envelope = (await api.post("/authenticate", {**DEMO, field: value})).json()
    assert envelope == {"msg_code": "RESTAPI001", "msg": "Invalid credentials!!", "token": ""}


async def test_authenticate_missing_fields_are_named(api):
    envelope = (await api.post("/authenticate", {"vendor_id": "DEMO", "username": "demo.api"})).json()
    assert envelope["msg_code"] == "RESTAPI001" and envelope["msg"] == "Invalid credentials!!"
    assert envelope["errors"] == ["Please enter Password", "Please enter Pin"]
    assert envelope["token"] == ""


@pytest.mark.parametrize("settings_overrides", [{"login_max_failures": 3}])
async def test_authenticate_locks_out_after_repeated_failures(api):
    for _ in range(3):
        await api.post("/authenticate", {**DEMO, "password": "wrong"})
    locked = (await api.post("/authenticate", DEMO)).json()
    assert locked["msg_code"] == "RESTAPI001"
    assert locked["errors"] == ["Too many failed logins; try again later"]


async def test_token_is_single_use(api):
    token = await api.token()
    first = (await api.post("/agent", body("update_location_coordinate"), token=token)).json()
    second = (await api.post("/agent", body("update_location_coordinate"), token=token)).json()
    assert first["msg_code"] == "RESTAPI000"
    assert second == {"msg_code": "RESTAPI001", "msg": "Token already used", "token": ""}


async def test_every_answer_after_the_token_check_carries_a_fresh_token_that_chains(api):
    token = await api.token()
    for overrides in ({}, {"source": "FAX"}, {"latitude": "500"}, {}):
        envelope = (await api.post("/agent", body("update_location_coordinate", **overrides), token=token)).json()
        assert envelope["token"] and envelope["token"] != token
        token = envelope["token"]
    assert envelope["msg_code"] == "RESTAPI000"


@pytest.mark.parametrize("header", [None, "", "not-a-token"])
async def test_missing_or_unknown_token_is_invalid_token(api, header):
    headers = {} if header is None else {"token": header}
    envelope = (await api.post("/agent", body("update_location_coordinate"), headers=headers)).json()
    assert envelope == {"msg_code": "RESTAPI001", "msg": "Invalid Token", "token": ""}


async def test_expired_token_is_token_expire(api):
    token = await api.token()
    async with api.db.transaction() as session:
        await session.execute(
            update(ApiToken)
            .where(col(ApiToken.token_hash) == digest(token))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    envelope = (await api.post("/agent", body("update_location_coordinate"), token=token)).json()
    assert envelope == {"msg_code": "RESTAPI001", "msg": "Token expire", "token": ""}


async def test_a_token_authenticated_for_real_is_accepted(api):
    token = (await api.post("/authenticate", DEMO)).json()["token"]
    envelope = (await api.post("/agent", body("update_location_coordinate"), token=token)).json()
    assert envelope["msg_code"] == "RESTAPI000"


async def test_every_operation_call_is_audited_without_its_body(api):
    await api.call("/agent", body("update_location_coordinate", latitude="12.5"))
    await api.post("/agent", body("update_location_coordinate"), token="bogus")
    async with api.db.transaction() as session:
        rows = (await session.exec(select(AuditEntry).order_by(col(AuditEntry.id)))).all()
    assert [(r.action, r.msg_code, r.agent_username) for r in rows] == [
        ("update_location_coordinate", "RESTAPI000", "demo.agent"),
        (None, "RESTAPI001", None),
    ]
    assert all(r.request_id and r.duration_ms >= 0 for r in rows)


# Issue 19, finding 2: a flood of logins costs one argon2 each at most, and is refused before any hashing by
# the rates of its address and of everyone, or by a full verification queue.
THROTTLED = "Too many logins; try again shortly"


@pytest.fixture
def verified(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The secrets offered to argon2, in order (each verification slowed a little: a burst overlaps)."""
    offered: list[str] = []
    verify = models.crypto.verify_secret

    def counting(stored: str | None, secret: str) -> bool:
        offered.append(secret)
        time.sleep(0.2)
        return verify(stored, secret)

    monkeypatch.setattr(models.crypto, "verify_secret", counting)
    return offered


def from_address(api: Any, host: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=api.app, raise_app_exceptions=False, client=(host, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://lineup.test")


def outcome(response: httpx.Response) -> tuple[str, str]:
    envelope = response.json()
    return envelope["msg_code"], (envelope.get("errors") or [envelope["msg"]])[0]


@pytest.mark.parametrize(
    "credentials",
    [
        {**DEMO, "username": "nobody.here"},  # the dummy hash
        {**DEMO, "password": "wrong-pass-1"},
        {**DEMO, "pin": "9999"},
        DEMO,
    ],
    ids=["unknown-user", "wrong-password", "wrong-pin", "right"],
)
async def test_authenticate_costs_one_argon2_whoever_is_named(api, verified, credentials):
    await api.post("/authenticate", credentials)
    assert len(verified) == 1


async def test_a_login_row_from_before_login_hashes_verifies_twice_then_once(api, verified):
    async with api.db.transaction() as session:
        await session.execute(update(ApiUser).where(col(ApiUser.username) == "demo.api").values(login_hash=None))
    assert (await api.post("/authenticate", DEMO)).json()["msg_code"] == "RESTAPI000"
    assert len(verified) == 2  # password and PIN apart, as before; the right pair then makes the login hash
    assert (await api.post("/authenticate", DEMO)).json()["msg_code"] == "RESTAPI000"
    assert len(verified) == 3


@pytest.mark.parametrize("settings_overrides", [{"login_address_per_minute": 6, "http_status": "rest"}])
async def test_logins_from_one_address_beyond_its_rate_are_refused_before_any_hashing(api, verified):
    unknown = {**DEMO, "username": "nobody.here"}
    assert outcome(await api.post("/authenticate", unknown)) == ("RESTAPI001", "Invalid credentials!!")
    throttled = await api.post("/authenticate", DEMO)  # a burst of one a second: the right pair waits too
    assert (throttled.status_code, outcome(throttled)) == (429, ("RESTAPI001", THROTTLED))
    assert len(verified) == 1
    async with from_address(api, "203.0.113.9") as other:  # another address has its own rate
        assert outcome(await other.post("/authenticate", json=DEMO)) == ("RESTAPI000", "Successfully Authenticate")


@pytest.mark.parametrize("settings_overrides", [{"login_total_per_second": 0.5}])
async def test_all_addresses_together_are_held_to_the_overall_rate(api, verified):
    async with from_address(api, "203.0.113.10") as first, from_address(api, "203.0.113.11") as second:
        assert outcome(await first.post("/authenticate", json=DEMO))[0] == "RESTAPI000"
        assert outcome(await second.post("/authenticate", json=DEMO)) == ("RESTAPI001", THROTTLED)
    assert len(verified) == 1


@pytest.mark.parametrize("settings_overrides", [{"login_verify_concurrency": 1, "login_verify_queue": 1}])
async def test_a_full_verification_queue_refuses_logins_at_once(api, verified):
    unknown = [{**DEMO, "username": f"nobody.{i}"} for i in range(4)]
    answers = await asyncio.gather(*(api.post("/authenticate", credentials) for credentials in unknown))
    assert sorted(outcome(answer)[1] for answer in answers) == ["Invalid credentials!!"] * 2 + [THROTTLED] * 2
    assert len(verified) == 2  # one verifying, one waiting; the rest never reached argon2
    # A known user's claimed attempt that found the queue full is given back, not counted.
    await asyncio.gather(*(api.post("/authenticate", {**DEMO, "password": "wrong-pass-1"}) for _ in range(4)))
    async with api.db.transaction() as session:
        user = (await session.exec(select(ApiUser).where(ApiUser.username == "demo.api"))).one()
    assert (user.failed_logins, user.pending_logins) == (2, 0)
