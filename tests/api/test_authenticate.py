"""POST /authenticate, single-use tokens, chaining, expiry, login throttling."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from models.clock import utcnow
from models.tables.audit import AuditEntry
from models.tables.auth import ApiToken, LoginLog
from persistence.auth.tokens import digest
from tests.builders import body

DEMO = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}


async def test_authenticate_returns_a_token_and_a_login_log_otp(api):
    envelope = (await api.post("/authenticate", DEMO)).json()
    assert envelope["msg_code"] == "RESTAPI000"
    assert envelope["msg"] == "Successfully Authenticate"
    assert len(envelope["token"]) >= 32
    otp = envelope["data"]["login_log_otp"]
    assert len(otp) == 6 and otp.isdigit()
    async with api.db.transaction() as session:
        stored = (await session.exec(select(ApiToken))).all()
        assert envelope["token"] not in {t.token_hash for t in stored}
        assert digest(envelope["token"]) in {t.token_hash for t in stored}
        assert (await session.exec(select(LoginLog).where(LoginLog.otp == otp))).first() is not None


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
