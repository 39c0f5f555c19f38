"""Lineup's own floor (information beside T1's shared floor) does the work it claims, on the migrated, seeded
database of both engines: each call claims its token once, records the location and the audit row, and answers the
next token in Lineup's envelope."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import sqlalchemy
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import col

from bench import bodies
from bench.floor_api import create_app
from bench.stack_db import tool_engine
from models import auth
from models.agents import AgentLocation
from models.auth import ApiToken, ApiUser, AuditEntry
from models.settings import get_settings


@pytest.fixture
async def floor(db_url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    """The floor as uvicorn would build it, reading LINEUP_* as Lineup's settings do."""
    monkeypatch.setenv("LINEUP_DATABASE_URL", db_url)
    monkeypatch.setenv("LINEUP_DATA_DIR", str(data_dir))
    get_settings.cache_clear()
    try:
        app = create_app()
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://floor.test") as http:
                yield http
    finally:
        get_settings.cache_clear()


@pytest.fixture
async def engine() -> AsyncIterator[AsyncEngine]:
    made = tool_engine(get_settings().db_url)
    try:
        yield made
    finally:
        await made.dispose()


async def minted(engine: AsyncEngine) -> str:
    """A token of the demo API user, stored as Lineup stores it."""
    async with engine.begin() as connection:
        query = select(col(ApiUser.vendor_id), col(ApiUser.id)).where(col(ApiUser.username) == "demo.api")
        user = (await connection.execute(query)).one()
        token, now = auth.new_token(), datetime.now(UTC)
        await connection.execute(
            sqlalchemy.insert(ApiToken),
            {
                "token_hash": auth.digest(token),
                "vendor_id": user[0],
                "api_user_id": user[1],
                "login_log_id": None,
                "issued_at": now,
                "expires_at": now + timedelta(minutes=15),
            },
        )
    return token


async def rows(engine: AsyncEngine, table: type) -> int:
    async with engine.connect() as connection:
        return int((await connection.execute(select(func.count()).select_from(table))).scalar_one())


async def test_each_call_claims_its_token_and_records_the_location(
    floor: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    token = await minted(engine)
    locations, audits, tokens = [await rows(engine, table) for table in (AgentLocation, AuditEntry, ApiToken)]
    first = token
    for _ in range(3):
        answer = (await floor.post("/agent", json=bodies.UPDATE_LOCATION, headers={"token": token})).json()
        assert answer["msg_code"] == "RESTAPI000" and answer["msg"] == "Success", answer
        assert answer["token"] and answer["token"] != token
        token = answer["token"]
    assert await rows(engine, AgentLocation) == locations + 3
    assert await rows(engine, AuditEntry) == audits + 3
    assert await rows(engine, ApiToken) == tokens + 3
    replayed = (await floor.post("/agent", json=bodies.UPDATE_LOCATION, headers={"token": first})).json()
    assert replayed == {"msg_code": "RESTAPI001", "msg": "Invalid Token", "token": ""}
    assert await rows(engine, AgentLocation) == locations + 3


async def test_an_invalid_body_spends_the_token_and_records_nothing(
    floor: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    token = await minted(engine)
    locations = await rows(engine, AgentLocation)
    body = {**bodies.UPDATE_LOCATION, "latitude": "123.0"}
    answer = (await floor.post("/agent", json=body, headers={"token": token})).json()
    assert answer["msg_code"] == "RESTAPI110" and answer["token"], answer
    assert await rows(engine, AgentLocation) == locations
    again = (await floor.post("/agent", json=bodies.UPDATE_LOCATION, headers={"token": token})).json()
    assert again["msg_code"] == "RESTAPI001"
    unknown = {**bodies.UPDATE_LOCATION, "username": "nobody.here"}
    refused = (await floor.post("/agent", json=unknown, headers={"token": answer["token"]})).json()
    assert refused["msg_code"] == "RESTAPI104" and refused["token"], refused
